import Rewind

/// Writes the page's embedded JSON by hand, straight into bytes: the data of a 100,000-version
/// session is mostly integer columns, which a `JSONEncoder` would box one by one.
///
/// Every `<` is written as `\u003c`, so the text can sit inside a `<script>` element whatever
/// the session's strings hold (no `</script>` can end it early).
struct PageJSONWriter {
    private(set) var bytes: [UInt8] = []

    mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    mutating func integer<T: BinaryInteger>(_ value: T) { bytes.append(contentsOf: String(value).utf8) }

    mutating func string(_ text: String) {
        value(.string(text))
    }

    mutating func value(_ value: JSONValue) {
        let encoded = (try? value.jsonBytes()) ?? Array("null".utf8)
        for byte in encoded {
            if byte == UInt8(ascii: "<") {
                bytes.append(contentsOf: #"\u003c"#.utf8)
            } else {
                bytes.append(byte)
            }
        }
    }

    /// `"key":`, preceded by a comma unless `first`.
    mutating func key(_ name: String, first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        string(name)
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func integers<T: BinaryInteger>(_ values: [T]) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            integer(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func array<Element>(_ elements: [Element], _ write: (inout PageJSONWriter, Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            write(&self, element)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}

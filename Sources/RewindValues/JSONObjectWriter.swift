/// Writes a JSON object of a fixed shape member by member, straight into bytes, in the order its
/// caller names the members: no `JSONValue` tree in between.
///
/// The writer of the session snapshot (a snapshot every 64 records): through a tree its JSON cost
/// about 37,000 instructions, 14,000 of them building six dictionaries (each key hashed) and the
/// rest sorting and writing them back out (callgrind, Benchmarks/HISTORY.md 2026-12-01). This is
/// the second writer of those shapes beside their `jsonValue` trees, which session archives and
/// recorded migrations embed in larger documents; tests hold the two, and `JSONEncoder` with
/// `.sortedKeys`, to the same bytes.
///
/// The caller names the members in the order `.sortedKeys` writes them (by UTF-8 bytes), with
/// names that need no escape. A value that cannot be written (NaN or an infinity) throws a
/// ``JSONWriteError`` whose path starts at the object: the member's name, then the value's own path.
package struct JSONObjectWriter: ~Copyable {
    private var isFirst = true

    /// Starts an object: appends `{` to `bytes`.
    package init(into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
    }

    /// Appends the separator and `"name":`, then calls `value` to write the member's value.
    package mutating func member(
        _ name: StaticString, into bytes: inout [UInt8],
        _ value: (inout [UInt8]) throws(JSONWriteError) -> Void
    ) throws(JSONWriteError) {
        try member(into: &bytes, value, named: name.description) { bytes in
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            bytes.append(UInt8(ascii: "\""))
        }
    }

    /// Appends the separator and the name `key`, escaped as a JSON string, then calls `value` to
    /// write the member's value: a member whose name is data (the caller sorts them).
    package mutating func member(
        named key: String, into bytes: inout [UInt8],
        _ value: (inout [UInt8]) throws(JSONWriteError) -> Void
    ) throws(JSONWriteError) {
        try member(into: &bytes, value, named: key) { bytes in JSONText.writeString(key, into: &bytes) }
    }

    /// The separator, the name `writeName` writes and `:`, then the value; a value that cannot be
    /// written throws with `path` (the name, made only then) first in its path.
    private mutating func member(
        into bytes: inout [UInt8], _ value: (inout [UInt8]) throws(JSONWriteError) -> Void,
        named path: @autoclosure () -> String, writingName writeName: (inout [UInt8]) -> Void
    ) throws(JSONWriteError) {
        if !isFirst { bytes.append(UInt8(ascii: ",")) }
        isFirst = false
        writeName(&bytes)
        bytes.append(UInt8(ascii: ":"))
        do throws(JSONWriteError) {
            try value(&bytes)
        } catch {
            throw JSONWriteError(number: error.number, path: [path()] + error.path)
        }
    }

    /// A member whose value is `value`, written as ``JSONValue/write(into:)`` writes it.
    package mutating func member(_ name: StaticString, _ value: JSONValue, into bytes: inout [UInt8])
        throws(JSONWriteError)
    {
        try member(name, into: &bytes) { bytes throws(JSONWriteError) in try value.write(into: &bytes) }
    }

    /// A member whose value is the string `value`.
    package mutating func member(_ name: StaticString, string value: String, into bytes: inout [UInt8])
        throws(JSONWriteError)
    {
        try member(name, into: &bytes) { bytes in JSONText.writeString(value, into: &bytes) }
    }

    /// A member whose value is the integer `value`.
    package mutating func member(_ name: StaticString, integer value: JSONNumber, into bytes: inout [UInt8])
        throws(JSONWriteError)
    {
        try member(name, into: &bytes) { bytes in value.writeText(into: &bytes) }
    }

    /// Ends the object: appends `}` to `bytes`.
    package consuming func end(into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "}"))
    }

    /// Appends a JSON array of `count` elements, the one at each index written by `element`; a
    /// value that cannot be written throws with its element's index first in the path. Not
    /// generic: called across modules, a generic one went through the runtime's metadata and
    /// witness tables for every array.
    package static func writeArray(
        count: Int, into bytes: inout [UInt8], _ element: (Int, inout [UInt8]) throws(JSONWriteError) -> Void
    ) throws(JSONWriteError) {
        bytes.append(UInt8(ascii: "["))
        for index in 0..<count {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            do throws(JSONWriteError) {
                try element(index, &bytes)
            } catch {
                throw JSONWriteError(number: error.number, path: [String(index)] + error.path)
            }
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Appends a JSON array of the strings `strings`.
    package static func writeArray(of strings: [String], into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        for index in 0..<strings.count {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONText.writeString(strings[index], into: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}

import RewindBaseTestSupport
@_spi(Internals) import RewindValues
import Testing

/// `JSONParser` read value by value by a caller that knows the shape it expects: objects and
/// arrays entered and walked, strings read as such, a place marked and gone back to, and the
/// same errors (offset and reason) as the parse of the whole document.
struct JSONParserReadingTests {
    private static func withParser<R>(_ text: String, _ body: (inout JSONParser) throws -> R) rethrows -> R {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(buffer)
            return try body(&parser)
        }
    }

    @Test func anObjectIsWalkedMemberByMemberItsValuesReadAsTheirShape() throws {
        let text = #" { "a" : "x" , "b\u0063" : [ "p" , {"q": 1} ] , "d": null } "#
        let read = try Self.withParser(text) { parser -> [String] in
            var seen: [String] = []
            #expect(try parser.enterObject())
            var cursor = JSONContainerCursor()
            while let key = try parser.nextMember(in: &cursor) {
                let name = key.withBytes { String(decoding: $0, as: UTF8.self) }
                switch name {
                case "a":
                    #expect(key.unescapedBytes != nil)
                    seen.append("a=\(try parser.readString() ?? "?")")
                case "bc":
                    // Escaped: its bytes with the escape resolved, not the text's.
                    #expect(key.unescapedBytes == nil)
                    let start = parser.mark()
                    #expect(try parser.enterArray())
                    var elements = JSONContainerCursor()
                    #expect(try parser.nextElement(in: &elements))
                    #expect(try parser.readString() == "p")
                    #expect(try parser.nextElement(in: &elements))
                    // Not a string: nothing read; then back to the array's start, read whole.
                    #expect(try parser.readString() == nil)
                    parser.reset(to: start)
                    seen.append("bc=\(try parser.readValue())")
                default:
                    #expect(try parser.enterArray() == false)
                    seen.append("\(name)=\(try parser.readValue())")
                }
            }
            try parser.endDocument()
            return seen
        }
        let whole = try JSONValue(jsonBytes: Array(text.utf8))
        guard case .object(let members) = whole, let bc = members["bc"], let d = members["d"] else {
            Issue.record("\(whole)")
            return
        }
        #expect(read == ["a=x", "bc=\(bc)", "d=\(d)"])
    }

    /// Where the text is not JSON, reading it throws what parsing it whole throws.
    @Test func aReaderMeetsTheErrorsOfTheWholeParse() {
        let texts = [
            #"{"a":1,}"#, #"{"a" 1}"#, #"{"a":[1,]}"#, #"{"a":["x" "y"]}"#, #"{"a":"\q"}"#, #"{"a":1} x"#, "{",
            #"{"a""#,
            #"{,"a":1}"#, #"{"a":[,1]}"#,
        ]
        for text in texts {
            var whole: JSONParseError?
            do { _ = try JSONValue(jsonBytes: Array(text.utf8)) } catch { whole = error }
            let read = Self.withParser(text) { parser -> JSONParseError? in
                do throws(JSONParseError) {
                    guard try parser.enterObject() else { return nil }
                    var cursor = JSONContainerCursor()
                    while try parser.nextMember(in: &cursor) != nil {
                        if try parser.enterArray() {
                            var elements = JSONContainerCursor()
                            while try parser.nextElement(in: &elements) {
                                if try parser.readString() == nil { _ = try parser.readValue() }
                            }
                        } else if try parser.readString() == nil {
                            _ = try parser.readValue()
                        }
                    }
                    try parser.endDocument()
                    return nil
                } catch {
                    return error
                }
            }
            #expect(whole != nil, "\(text)")
            #expect(read.map { "\($0)" } == whole.map { "\($0)" }, "\(text)")
        }
    }

    @Test func objectsAndArraysEnteredPastTheDepthLimitAreRefused() {
        let depth = JSONValue.maximumParseDepth
        let text = String(repeating: "[", count: depth + 1) + String(repeating: "]", count: depth + 1)
        let entered = Self.withParser(text) { parser -> Int in
            var entered = 0
            do {
                while try parser.enterArray() { entered += 1 }
            } catch {
                #expect("\(error)".contains("\(depth)"), "\(error)")
            }
            return entered
        }
        #expect(entered == depth)
    }
}

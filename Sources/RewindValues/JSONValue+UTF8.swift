// A hand-written, strict RFC 8259 parser and a canonical writer for `JSONValue`, working on UTF-8
// bytes directly. They replace `JSONDecoder`/`JSONEncoder` on the hot paths (payload decoding,
// snapshots): no `Decoder` machinery, no thrown-and-caught errors per value, one pass.

import Foundation

extension JSONValue {
    /// How deeply arrays and objects may nest in a parsed text; deeper input is rejected with
    /// ``JSONParseError/Reason/tooDeep(limit:)`` rather than exhausting the stack.
    public static let maximumParseDepth = 512

    /// Parses a JSON text (RFC 8259, UTF-8), strictly: one value, optionally surrounded by
    /// whitespace; no comments, trailing commas, leading zeros, lone surrogates or malformed UTF-8.
    ///
    /// Numbers are kept exactly (``JSONNumber``): integers as integers, others as the `Double`
    /// whose shortest text is the same number, or as their decimal text. A number beyond the
    /// range of a `Double` (such as `1e400` or `1e-400`) is rejected, as `JSONDecoder` does. When an object repeats a key, the last member wins.
    ///
    /// - Throws: ``JSONParseError`` with the byte offset and the reason.
    public init(jsonBytes bytes: UnsafeRawBufferPointer) throws(JSONParseError) {
        var parser = JSONParser(bytes.bindMemory(to: UInt8.self))
        self = try parser.parseDocument()
    }

    /// Parses a JSON text held in any collection of bytes (`[UInt8]`, `Data`, a slice).
    ///
    /// - Throws: ``JSONParseError`` with the byte offset and the reason.
    public init(jsonBytes bytes: some Collection<UInt8>) throws(JSONParseError) {
        let parsed = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONParseError) -> JSONValue in
                try JSONValue(jsonBytes: UnsafeRawBufferPointer(buffer))
            }
        }
        if let parsed {
            self = try parsed.get()
        } else {
            self = try Array(bytes).withUnsafeBytes { buffer in
                Result { () throws(JSONParseError) -> JSONValue in try JSONValue(jsonBytes: buffer) }
            }.get()
        }
    }

    /// The most strings a parser's memory (``stringMemory()``) holds before it starts over.
    package static var maximumRememberedStrings: Int { 4_096 }

    /// A memory of strings for a parser (`JSONParser.strings`, with `isRememberingStrings`): it
    /// starts over past ``maximumRememberedStrings``. A reader of many texts that repeat the same
    /// strings (an archive's record lines) keeps one and makes each string once.
    package static func stringMemory() -> UTF8KeyTable {
        UTF8KeyTable(startingOverPast: maximumRememberedStrings)
    }

    /// The value's canonical JSON text: object keys sorted by their UTF-8 bytes, no whitespace,
    /// numbers in their canonical text (``JSONNumber/text``: integers in plain digits, numbers
    /// held as a `Double` as Swift prints it, without a trailing `.0`). The bytes are those
    /// `JSONEncoder` with `.sortedKeys` writes for the same value, `/` escaped as `\/` included,
    /// so equal values give equal bytes whichever of the two wrote them.
    ///
    /// - Throws: ``JSONWriteError`` when a number is NaN or infinite.
    public func jsonBytes() throws(JSONWriteError) -> [UInt8] {
        var bytes: [UInt8] = []
        try write(into: &bytes)
        return bytes
    }

    /// Appends the value's canonical JSON text (see ``jsonBytes()``) to `bytes`.
    ///
    /// - Throws: ``JSONWriteError`` when a number is NaN or infinite; `bytes` then holds part of
    ///   the text.
    public func write(into bytes: inout [UInt8]) throws(JSONWriteError) {
        try write(into: &bytes, escapingSlashes: true)
    }

    /// Appends the value's JSON text as ``write(into:)`` does, with `/` written as is when
    /// `escapingSlashes` is false: the bytes `JSONEncoder` with `.sortedKeys` and
    /// `.withoutEscapingSlashes` writes (session archives' lines).
    package func write(into bytes: inout [UInt8], escapingSlashes: Bool) throws(JSONWriteError) {
        switch self {
        case .null:
            bytes.append(contentsOf: JSONText.null)
        case .bool(let value):
            bytes.append(contentsOf: value ? JSONText.true : JSONText.false)
        case .number(let value):
            guard value.isFinite else { throw JSONWriteError(number: value.doubleValue, path: []) }
            value.writeText(into: &bytes)
        case .string(let value):
            JSONText.writeString(value, into: &bytes, escapingSlashes: escapingSlashes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                do {
                    try element.write(into: &bytes, escapingSlashes: escapingSlashes)
                } catch {
                    throw JSONWriteError(number: error.number, path: [String(index)] + error.path)
                }
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            var first = true
            try JSONText.forEachSorted(members) { (key, value) throws(JSONWriteError) in
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                JSONText.writeString(key, into: &bytes, escapingSlashes: escapingSlashes)
                bytes.append(UInt8(ascii: ":"))
                do throws(JSONWriteError) {
                    try value.write(into: &bytes, escapingSlashes: escapingSlashes)
                } catch {
                    throw JSONWriteError(number: error.number, path: [key] + error.path)
                }
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }
}

// MARK: - Writing

/// The pieces of the canonical writer, shared with the package's other JSON writers (session
/// archives' record lines).
package enum JSONText {
    static let null: [UInt8] = Array("null".utf8)
    static let `true`: [UInt8] = Array("true".utf8)
    static let `false`: [UInt8] = Array("false".utf8)

    /// Calls `body` with each of `members` in the order `JSONEncoder`'s `.sortedKeys` writes them
    /// (by UTF-8 bytes). What is sorted is the dictionary's positions, on the stack: an array of
    /// the members' copies, sorted and destroyed member by member through the tuple's metadata,
    /// was about 13,000 instructions of a session snapshot's 33,000 (callgrind,
    /// Benchmarks/HISTORY.md 2026-12-01).
    static func forEachSorted<Failure: Error>(
        _ members: [String: JSONValue], _ body: (String, JSONValue) throws(Failure) -> Void
    ) throws(Failure) {
        if members.count < 2 {
            for (key, value) in members { try body(key, value) }
            return
        }
        typealias Position = Dictionary<String, JSONValue>.Index
        let order: Result<Void, Failure> = withUnsafeTemporaryAllocation(of: Position.self, capacity: members.count) {
            storage in
            var positions = storage
            var next = positions.startIndex
            for position in members.indices {
                positions.initializeElement(at: next, to: position)
                next += 1
            }
            positions.sort { utf8Precedes(members.keys[$0], members.keys[$1]) }
            defer { positions.deinitialize() }
            for position in positions {
                do throws(Failure) {
                    try body(members.keys[position], members.values[position])
                } catch {
                    return .failure(error)
                }
            }
            return .success(())
        }
        try order.get()
    }

    /// Whether `lhs` sorts before `rhs` by UTF-8 bytes (by Unicode scalars, equivalently). Read in
    /// place (native strings are contiguous UTF-8): no copy of either string.
    package static func utf8Precedes(_ lhs: String, _ rhs: String) -> Bool {
        let order = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                let common = min(left.count, right.count)
                if common > 0, let leftBase = left.baseAddress, let rightBase = right.baseAddress {
                    let order = memcmp(leftBase, rightBase, common)
                    if order != 0 { return order < 0 }
                }
                return left.count < right.count
            }
        }
        return (order ?? nil) ?? lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    /// Appends the decimal digits of `value` (``JSONRawWriter/writeDigits(_:)``).
    package static func writeDigits(_ value: UInt64, into bytes: inout [UInt8]) {
        if value < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(value))
            return
        }
        bytes.appendJSON(atMost: JSONRawWriter.integerBound) { $0.writeDigits(value) }
    }

    /// Writes a string literal with `JSONEncoder`'s escapes: `\"`, `\\`, `\/` (`/` as is when
    /// `escapingSlashes` is false, as with `.withoutEscapingSlashes`), `\b`, `\f`, `\n`, `\r`,
    /// `\t`, `\u00XX` (lowercase hex) for other control characters; all else as UTF-8.
    package static func writeString(_ string: String, into bytes: inout [UInt8], escapingSlashes: Bool = true) {
        var string = string
        string.withUTF8 {
            writeString(utf8: UnsafeRawBufferPointer($0), into: &bytes, escapingSlashes: escapingSlashes)
        }
    }

    /// Writes the string whose UTF-8 (valid) is `utf8` as ``writeString(_:into:escapingSlashes:)``
    /// does (``JSONRawWriter/writeString(utf8:escapingSlashes:)``).
    package static func writeString(utf8: UnsafeRawBufferPointer, into bytes: inout [UInt8], escapingSlashes: Bool) {
        bytes.appendJSON(atMost: JSONRawWriter.stringBound(utf8Count: utf8.count)) {
            $0.writeString(utf8: utf8, escapingSlashes: escapingSlashes)
        }
    }

}

// MARK: - Parsing

/// A single-pass recursive-descent parser over a borrowed UTF-8 buffer. It parses a document
/// into a ``JSONValue`` (``parseDocument()``), or is read by a caller that knows the shape it
/// expects, value by value (`MARK: Reading a known shape`).
package struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// Reused for strings that contain escapes.
    private var scratch: [UInt8] = []
    /// Whether escape-free strings are interned in `strings` (by default they are made each time).
    package var isRememberingStrings = false
    /// The strings interned so far.
    package var strings = UTF8KeyTable()
    /// How many objects and arrays a reader of a known shape is inside (``enterObject()``,
    /// ``enterArray()``): the depth of the values it reads next.
    private var depth = 0

    /// A parser of the text `bytes`, which must stay valid while it is used.
    package init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The one value of the text, with nothing but whitespace around it.
    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw JSONParseError(offset: index, reason: .trailingData) }
        return value
    }

    // MARK: Values

    private mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw unexpected() }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral(JSONText.true)
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral(JSONText.false)
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral(JSONText.null)
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(JSONNumber(storage: try parseNumber()))
        default:
            throw unexpected()
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        var members: [String: JSONValue] = [:]
        try parseMembers(depth: depth) { key, value in members[String(decoding: key, as: UTF8.self)] = value }
        return .object(members)
    }

    /// Parses an object (`index` at its `{`) at nesting `depth`, handing each member to `member`:
    /// its key's UTF-8 bytes (escapes resolved; valid during the call only) and its value.
    private mutating func parseMembers(
        depth: Int, _ member: (UnsafeBufferPointer<UInt8>, JSONValue) -> Void
    ) throws(JSONParseError) {
        guard depth <= JSONValue.maximumParseDepth else {
            throw JSONParseError(offset: index, reason: .tooDeep(limit: JSONValue.maximumParseDepth))
        }
        index += 1  // {
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            let key = try memberKey()
            let value = try parseValue(depth: depth)
            key.withBytes { member($0, value) }
            guard try hasAnother(before: UInt8(ascii: "}")) else { return }
        }
    }

    /// Parses a member's key and the colon after it (whitespace before each).
    private mutating func memberKey() throws(JSONParseError) -> JSONMemberKey {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw unexpected() }
        // The key's bytes are handed over as they are in the text when it has no escape (no
        // String made: a reader of known members compares them); else a copy of the scratch
        // buffer, which the value may reuse.
        let key: JSONMemberKey
        switch try parseStringContents() {
        case .text(let range): key = JSONMemberKey(text: UnsafeBufferPointer(rebasing: bytes[range]))
        case .scratch: key = JSONMemberKey(escaped: scratch)
        }
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw unexpected() }
        index += 1
        return key
    }

    /// After a member's value or an element: `true` past a comma (another one follows), `false`
    /// past `closing`, the container's `}` or `]`. Inlined, as are `enter` and `hasNext`: called
    /// with `closing` a variable, the shared body cost about 430 instructions a record line of an
    /// archive (callgrind, Benchmarks/HISTORY.md 2026-12-02).
    @inline(__always)
    private mutating func hasAnother(before closing: UInt8) throws(JSONParseError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw unexpected() }
        switch bytes[index] {
        case UInt8(ascii: ","):
            index += 1
            return true
        case closing:
            index += 1
            return false
        default:
            throw unexpected()
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= JSONValue.maximumParseDepth else {
            throw JSONParseError(offset: index, reason: .tooDeep(limit: JSONValue.maximumParseDepth))
        }
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue(depth: depth))
            guard try hasAnother(before: UInt8(ascii: "]")) else { return .array(elements) }
        }
    }

    private mutating func expectLiteral(_ literal: [UInt8]) throws(JSONParseError) {
        for expected in literal {
            guard index < bytes.count, bytes[index] == expected else { throw unexpected() }
            index += 1
        }
    }

    // MARK: Strings

    /// Where a parsed string literal's characters are: a range of the text's own bytes when it
    /// has no escape, else ``scratch``, which holds them with the escapes resolved.
    private enum StringContents {
        case text(Range<Int>)
        case scratch
    }

    /// Parses a string literal; `index` is at its opening quote.
    private mutating func parseString() throws(JSONParseError) -> String {
        switch try parseStringContents() {
        case .text(let range):
            let text = UnsafeBufferPointer(rebasing: bytes[range])
            guard isRememberingStrings else { return String(decoding: text, as: UTF8.self) }
            return strings.string(UnsafeRawBufferPointer(text))
        case .scratch: return String(decoding: scratch, as: UTF8.self)
        }
    }

    /// Parses a string literal (`index` at its opening quote), checking it, and says where its
    /// characters are.
    private mutating func parseStringContents() throws(JSONParseError) -> StringContents {
        index += 1  // "
        let start = index
        // Fastest path: printable ASCII up to the closing quote, eight bytes at a time while none
        // of them is special, then byte by byte.
        if let base = bytes.baseAddress {
            var scan = index
            while scan + 8 <= bytes.count, !Self.holdsSpecialStringByte(ByteWord.load(base, at: scan)) {
                scan += 8
            }
            while scan < bytes.count {
                let byte = base[scan]
                if byte == 0x22 {  // "
                    index = scan + 1
                    return .text(start..<scan)
                }
                if byte == 0x5C || byte < 0x20 || byte >= 0x80 { break }
                scan += 1
            }
            index = scan
        }
        // Fast path: no escapes, so the string is the bytes themselves once validated.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x22 {  // "
                index += 1
                return .text(start..<(index - 1))
            }
            if byte == 0x5C { break }  // \
            if byte < 0x20 { throw JSONParseError(offset: index, reason: .controlCharacterInString(byte)) }
            if byte < 0x80 { index += 1 } else { try skipUTF8Sequence() }
        }
        guard index < bytes.count else { throw unexpected() }
        // Slow path: copy into the scratch buffer, resolving escapes.
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return .scratch
            case UInt8(ascii: "\\"):
                try parseEscape()
            case 0..<0x20:
                throw JSONParseError(offset: index, reason: .controlCharacterInString(byte))
            case 0..<0x80:
                scratch.append(byte)
                index += 1
            default:
                let sequenceStart = index
                try skipUTF8Sequence()
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[sequenceStart..<index]))
            }
        }
        throw unexpected()
    }

    /// Whether one of the eight bytes of `word` may be a quote, a backslash, a control character
    /// or not ASCII (``ByteWord``).
    @inline(__always)
    private static func holdsSpecialStringByte(_ word: UInt64) -> Bool {
        ByteWord.equal(word, 0x22) | ByteWord.equal(word, 0x5C) | ByteWord.below(word, 0x20) | ByteWord.nonASCII(word)
            != 0
    }

    /// Appends the character of the escape at `index` (a backslash) to `scratch`.
    private mutating func parseEscape() throws(JSONParseError) {
        let escapeStart = index
        index += 1
        guard index < bytes.count else { throw unexpected() }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try parseHex4()
            var scalarValue = UInt32(unit)
            if (0xD800...0xDBFF).contains(unit) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw JSONParseError(offset: escapeStart, reason: .unpairedSurrogate) }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw JSONParseError(offset: escapeStart, reason: .unpairedSurrogate)
                }
                scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(unit) {
                throw JSONParseError(offset: escapeStart, reason: .unpairedSurrogate)
            }
            guard let scalar = Unicode.Scalar(scalarValue) else {
                throw JSONParseError(offset: escapeStart, reason: .unpairedSurrogate)
            }
            if let encoded = UTF8.encode(scalar) { scratch.append(contentsOf: encoded) }
        default:
            throw JSONParseError(offset: index - 1, reason: .invalidEscape(byte))
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt16 {
        guard index + 4 <= bytes.count else {
            throw JSONParseError(offset: bytes.count, reason: .unexpectedEnd)
        }
        var value: UInt16 = 0
        for offset in 0..<4 {
            let byte = bytes[index + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONParseError(offset: index + offset, reason: .invalidUnicodeEscape)
            }
            value = value << 4 | UInt16(digit)
        }
        index += 4
        return value
    }

    /// Steps over one well-formed multi-byte UTF-8 sequence (RFC 3629 §4) starting at `index`.
    private mutating func skipUTF8Sequence() throws(JSONParseError) {
        let lead = bytes[index]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            secondRange = 0x80...0x9F
        case 0xF0:
            length = 4
            secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            secondRange = 0x80...0x8F
        default: throw JSONParseError(offset: index, reason: .invalidUTF8)
        }
        guard index + length <= bytes.count else { throw JSONParseError(offset: bytes.count, reason: .unexpectedEnd) }
        guard secondRange.contains(bytes[index + 1]) else { throw JSONParseError(offset: index, reason: .invalidUTF8) }
        for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 {
            throw JSONParseError(offset: index, reason: .invalidUTF8)
        }
        index += length
    }

    // MARK: Numbers

    /// Exact powers of ten for the fast path (every one up to 10^22 is a `Double`).
    private static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// Parses a number per RFC 8259 §6, exactly (see ``JSONNumber``); `index` is at its first byte.
    private mutating func parseNumber() throws(JSONParseError) -> JSONNumber.Storage {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }

        var significand: UInt64 = 0
        var significantDigits = 0  // digits from the first non-zero one on
        var fractionDigits = 0
        var isPlainInteger = true

        // int: 0 | [1-9][0-9]*
        guard index < bytes.count else { throw unexpected() }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if isDigit(bytes[index]) {
            while index < bytes.count, isDigit(bytes[index]) {
                accumulate(bytes[index], into: &significand, count: &significantDigits)
                index += 1
            }
        } else {
            throw JSONParseError(offset: index, reason: .invalidNumber)
        }
        // frac: . [0-9]+
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isPlainInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw invalidNumberOrEnd() }
            while index < bytes.count, isDigit(bytes[index]) {
                accumulate(bytes[index], into: &significand, count: &significantDigits)
                fractionDigits += 1
                index += 1
            }
        }
        // exp: [eE] [+-]? [0-9]+
        var exponent = 0
        var exponentIsHuge = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isPlainInteger = false
            index += 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw invalidNumberOrEnd() }
            while index < bytes.count, isDigit(bytes[index]) {
                if exponent < 100_000 {
                    exponent = exponent * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                } else {
                    exponentIsHuge = true
                }
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }

        // Fast paths. An integer of up to 18 digits is an Int64. A number of up to 15 significant
        // digits whose power of ten is an exact Double is the correctly rounded quotient or
        // product of two exact Doubles, and is the Double whose shortest text is that number
        // (every decimal of at most 15 digits round-trips through a Double).
        if significantDigits <= 18, isPlainInteger {
            if significand == 0 { return negative ? .double(-0.0) : .integer(0) }
            return .integer(negative ? -Int64(significand) : Int64(significand))
        }
        if significantDigits <= 15, !exponentIsHuge {
            if significand == 0 { return negative ? .double(-0.0) : .integer(0) }
            let magnitude = Double(significand)
            let scale = exponent - fractionDigits
            if (-22...22).contains(scale) {
                let value =
                    scale < 0
                    ? magnitude / Self.powersOfTen[-scale] : magnitude * Self.powersOfTen[scale]
                return JSONNumber(negative ? -value : value).storage
            }
        }
        // General case: the exact decimal value, held as an integer, a Double or its text; a
        // number beyond a Double's range is refused, as JSONDecoder refuses it.
        let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite,
            value != 0 || significand == 0,
            let digits = DecimalDigits(jsonNumberText: text)
        else {
            throw JSONParseError(offset: start, reason: .numberOutOfRange)
        }
        return digits.storage
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    @inline(__always)
    private func accumulate(_ digit: UInt8, into significand: inout UInt64, count: inout Int) {
        guard count > 0 || digit != UInt8(ascii: "0") else { return }
        if count < 19 { significand = significand &* 10 &+ UInt64(digit &- UInt8(ascii: "0")) }
        count += 1
    }

    // MARK: Reading a known shape

    /// A place in the text to come back to (``reset(to:)``): a reader that tries a shape and
    /// finds another reads the value again as a ``JSONValue``.
    package struct Mark {
        fileprivate let index: Int
        fileprivate let depth: Int
    }

    /// Where the reader is.
    package func mark() -> Mark { Mark(index: index, depth: depth) }

    /// The text read since `mark` (valid while the parser's text is): a reader that reads the
    /// same values over and over keys what it made of them by their text.
    package func text(since mark: Mark) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[mark.index..<index]))
    }

    /// Goes back to `mark`: what was read since is read again.
    package mutating func reset(to mark: Mark) {
        index = mark.index
        depth = mark.depth
    }

    /// Enters the object that is the next value, past its `{`: `false`, nothing read, when the
    /// next value is no object.
    ///
    /// - Throws: ``JSONParseError`` at the end of the text, or past ``JSONValue/maximumParseDepth``.
    package mutating func enterObject() throws(JSONParseError) -> Bool {
        try enter(UInt8(ascii: "{"))
    }

    /// The key of the next member of the object entered last, past its colon (its value comes
    /// next), or `nil` past the object's `}`. `cursor` is the object's, made when it was entered.
    package mutating func nextMember(in cursor: inout JSONContainerCursor) throws(JSONParseError) -> JSONMemberKey? {
        try hasNext(in: &cursor, closing: UInt8(ascii: "}")) ? try memberKey() : nil
    }

    /// Enters the array that is the next value, past its `[`: `false`, nothing read, when the
    /// next value is no array.
    ///
    /// - Throws: ``JSONParseError`` at the end of the text, or past ``JSONValue/maximumParseDepth``.
    package mutating func enterArray() throws(JSONParseError) -> Bool {
        try enter(UInt8(ascii: "["))
    }

    /// Enters the container that is the next value when it opens with `opening`.
    @inline(__always)
    private mutating func enter(_ opening: UInt8) throws(JSONParseError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw unexpected() }
        guard bytes[index] == opening else { return false }
        guard depth + 1 <= JSONValue.maximumParseDepth else {
            throw JSONParseError(offset: index, reason: .tooDeep(limit: JSONValue.maximumParseDepth))
        }
        index += 1
        depth += 1
        return true
    }

    /// Whether the container entered last has another member or element (`closing` is its `}`
    /// or `]`), leaving it past `closing` when not; `cursor` is the container's.
    @inline(__always)
    private mutating func hasNext(in cursor: inout JSONContainerCursor, closing: UInt8) throws(JSONParseError) -> Bool {
        if cursor.isFirst {
            cursor.isFirst = false
            skipWhitespace()
            guard index < bytes.count, bytes[index] == closing else { return true }
            index += 1
        } else if try hasAnother(before: closing) {
            return true
        }
        depth -= 1
        return false
    }

    /// Whether the array entered last has another element (which comes next); `false` past its
    /// `]`. `cursor` is the array's, made when it was entered.
    package mutating func nextElement(in cursor: inout JSONContainerCursor) throws(JSONParseError) -> Bool {
        try hasNext(in: &cursor, closing: UInt8(ascii: "]"))
    }

    /// The next value, whatever it is.
    package mutating func readValue() throws(JSONParseError) -> JSONValue {
        try parseValue(depth: depth)
    }

    /// The next value when it is a string (interned when ``isRememberingStrings``); `nil`,
    /// nothing read, when it is another kind of value.
    package mutating func readString() throws(JSONParseError) -> String? {
        skipWhitespace()
        guard index < bytes.count else { throw unexpected() }
        guard bytes[index] == UInt8(ascii: "\"") else { return nil }
        return try parseString()
    }

    /// Reads the whitespace after the document's value: the text must end there.
    package mutating func endDocument() throws(JSONParseError) {
        skipWhitespace()
        guard index == bytes.count else { throw JSONParseError(offset: index, reason: .trailingData) }
    }

    // MARK: Helpers

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// The error for the byte at `index`: the end of the text, or a byte that cannot come here.
    private func unexpected() -> JSONParseError {
        guard index < bytes.count else { return JSONParseError(offset: index, reason: .unexpectedEnd) }
        return JSONParseError(offset: index, reason: .unexpectedByte(bytes[index]))
    }

    private func invalidNumberOrEnd() -> JSONParseError {
        guard index < bytes.count else { return JSONParseError(offset: index, reason: .unexpectedEnd) }
        return JSONParseError(offset: index, reason: .invalidNumber)
    }
}

/// Where a reader is in an object or an array it entered (``JSONParser/nextMember(in:)``,
/// ``JSONParser/nextElement(in:)``): one per container, made when it is entered.
package struct JSONContainerCursor {
    fileprivate var isFirst = true

    /// A cursor before the container's first member or element.
    package init() {}
}

/// A member's key as a reader of a known shape gets it (``JSONParser/nextMember(in:)``): the
/// text's own bytes when it has no escape, else a copy with its escapes resolved. No `String` is
/// made for it: the reader compares it with the names it knows.
package struct JSONMemberKey {
    private let text: UnsafeBufferPointer<UInt8>
    private let escaped: [UInt8]?

    fileprivate init(text: UnsafeBufferPointer<UInt8>) {
        self.text = text
        escaped = nil
    }

    fileprivate init(escaped: [UInt8]) {
        text = UnsafeBufferPointer(start: nil, count: 0)
        self.escaped = escaped
    }

    /// The key's bytes in the text when it has no escape (almost every key); `nil` when it has
    /// one (read them with ``withBytes(_:)``). Valid while the parser's text is.
    package var unescapedBytes: UnsafeBufferPointer<UInt8>? { escaped == nil ? text : nil }

    /// Calls `body` with the key's UTF-8 bytes (escapes resolved), valid during the call only.
    package func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        guard let escaped else { return try body(text) }
        return try escaped.withUnsafeBufferPointer(body)
    }
}

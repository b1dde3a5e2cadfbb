import Foundation
import RewindMachine
import RewindStore
@_spi(Internals) import RewindValues

/// Reading an archive's line bodies: parsed with RewindValues' JSON parser and read with
/// ``JSONShape``, a record line's members read as the parser meets them (`JSONParser`'s reading
/// of a known shape: no dictionary of the object, and its strings, lists and navigation read as
/// such, not as ``JSONValue``s). `JSONDecoder` and
/// `Decodable` cost about 115,000 instructions a record line and 4 million a header, most of an
/// import's time (Benchmarks/HISTORY.md, "Archive import without JSONDecoder" and "Archive
/// import: members as the parser meets them"). The record lines' writer is
/// `SessionArchive+RecordJSON.swift`.
extension SessionArchive.Record {
    /// A member as the reader met it: a string, a list of strings or the navigation read as
    /// their types where the text has them so (no ``JSONValue`` made), else the value as it is,
    /// which the checks after the reading refuse with the same errors as a value of that member.
    private enum Member<Value> {
        case absent
        case read(Value)
        case other(JSONValue)
    }

    /// The members of a record line's body this reader knows; the others are read and ignored.
    /// A repeated key: the last one wins.
    private struct Members {
        var version, sequence, timestamp: JSONValue?
        var machine: Member<String> = .absent
        var definition: Member<String> = .absent
        var event: Member<String> = .absent
        var source: Member<[String]> = .absent
        var target: Member<[String]> = .absent
        var navigation: Member<[NavigationOperation]> = .absent
        var origin, redacted, recordedState: JSONValue?
        var payload, payloadBase64, stateData, stateDataBase64: JSONValue?

        /// The members of the body `text` (strings and lists kept in `memory`); `nil`, having read
        /// the whole text, when it is JSON but no object.
        static func read(
            _ text: UnsafeBufferPointer<UInt8>, formatVersion: Int, memory: inout RecordLineMemory
        ) throws(JSONParseError) -> Members? {
            var parser = JSONParser(text)
            parser.isRememberingStrings = true
            // Moved in and out, not copied: a second reference would copy its tables on write.
            swap(&parser.strings, &memory.strings)
            defer { swap(&parser.strings, &memory.strings) }
            var members = Members()
            return try members.read(&parser, formatVersion: formatVersion, memory: &memory) ? members : nil
        }

        /// Reads the body's members with `parser`; `false`, having read the whole text, when it
        /// is JSON but no object. Every member's value is read in the text's order, so a text
        /// that is not JSON throws the `JSONParseError` a parse of the whole value would (the same
        /// place); a value of another shape is kept as it is for the checks after.
        mutating func read(
            _ parser: inout JSONParser, formatVersion: Int, memory: inout RecordLineMemory
        ) throws(JSONParseError) -> Bool {
            guard try parser.enterObject() else {
                _ = try parser.readValue()
                try parser.endDocument()
                return false
            }
            var cursor = JSONContainerCursor()
            while let key = try parser.nextMember(in: &cursor) {
                switch key.unescapedBytes.map(Field.init) ?? key.withBytes(Field.init) {
                case .definition: definition = try Self.string(&parser)
                case .event: event = try Self.string(&parser)
                case .machine: machine = try Self.string(&parser)
                case .navigation:
                    navigation =
                        formatVersion == 1
                        ? .other(try parser.readValue()) : try Self.navigation(&parser, &memory.navigationLists)
                case .sequence: sequence = try parser.readValue()
                case .source: source = try Self.strings(&parser, &memory.stateLists)
                case .target: target = try Self.strings(&parser, &memory.stateLists)
                case .timestamp: timestamp = try parser.readValue()
                case .version: version = try parser.readValue()
                case .origin: origin = try parser.readValue()
                case .redacted: redacted = try parser.readValue()
                case .recordedState: recordedState = try parser.readValue()
                case .payload: payload = try parser.readValue()
                case .payloadBase64: payloadBase64 = try parser.readValue()
                case .stateData: stateData = try parser.readValue()
                case .stateDataBase64: stateDataBase64 = try parser.readValue()
                case .push, .popTo, .replace, .setRoot, nil: _ = try parser.readValue()
                }
            }
            try parser.endDocument()
            return true
        }

        /// The names a record line's reader knows: its members, and the operations of its
        /// navigation.
        private enum Field {
            case definition, event, machine, navigation, sequence, source, target, timestamp, version
            case origin, redacted, recordedState, payload, payloadBase64, stateData, stateDataBase64
            case push, popTo, replace, setRoot

            /// The name `key` (UTF-8) is, if any. The key's bytes are compared, lengths first: no
            /// String is made for it, and a name of another length costs one comparison of
            /// integers (a `switch` over String names was 2,100 instructions a record line, the
            /// keys' Strings as much again; callgrind, Benchmarks/HISTORY.md 2026-11-30).
            init?(_ key: UnsafeBufferPointer<UInt8>) {
                // Inlined, so that each name's length is a constant its comparison starts with.
                @inline(__always) func named(_ name: StaticString) -> Bool {
                    UnsafeRawBufferPointer(key).equals(
                        UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
                }
                if named("definition") {
                    self = .definition
                } else if named("event") {
                    self = .event
                } else if named("machine") {
                    self = .machine
                } else if named("navigation") {
                    self = .navigation
                } else if named("sequence") {
                    self = .sequence
                } else if named("source") {
                    self = .source
                } else if named("target") {
                    self = .target
                } else if named("timestamp") {
                    self = .timestamp
                } else if named("version") {
                    self = .version
                } else if named("origin") {
                    self = .origin
                } else if named("redacted") {
                    self = .redacted
                } else if named("recordedState") {
                    self = .recordedState
                } else if named("payload") {
                    self = .payload
                } else if named("payloadBase64") {
                    self = .payloadBase64
                } else if named("stateData") {
                    self = .stateData
                } else if named("stateDataBase64") {
                    self = .stateDataBase64
                } else if named("push") {
                    self = .push
                } else if named("popTo") {
                    self = .popTo
                } else if named("replace") {
                    self = .replace
                } else if named("setRoot") {
                    self = .setRoot
                } else {
                    return nil
                }
            }
        }

        /// The next value, as a string when it is one.
        private static func string(_ parser: inout JSONParser) throws(JSONParseError) -> Member<String> {
            if let string = try parser.readString() { return .read(string) }
            return .other(try parser.readValue())
        }

        /// The next value, as a list of strings when it is an array of strings only (the list
        /// made before for the same text, from `lists`).
        private static func strings(
            _ parser: inout JSONParser, _ lists: inout RecentLists<String>
        ) throws(JSONParseError) -> Member<[String]> {
            let start = parser.mark()
            if try parser.enterArray() {
                lists.beginList()
                var cursor = JSONContainerCursor()
                while try parser.nextElement(in: &cursor) {
                    guard let string = try parser.readString() else {
                        parser.reset(to: start)
                        return .other(try parser.readValue())
                    }
                    lists.scratch.append(string)
                }
                return .read(lists.list(ofText: parser.text(since: start)))
            }
            return .other(try parser.readValue())
        }

        /// The next value, as navigation operations when it is an array of them as
        /// ``ArchiveNavigation`` reads them (`"pop"`, or an object of one member naming the
        /// screen: `{"push":"detail"}`; the list made before for the same text, from `lists`);
        /// else as it is.
        private static func navigation(
            _ parser: inout JSONParser, _ lists: inout RecentLists<NavigationOperation>
        ) throws(JSONParseError) -> Member<[NavigationOperation]> {
            let start = parser.mark()
            if try parser.enterArray() {
                lists.beginList()
                var cursor = JSONContainerCursor()
                while try parser.nextElement(in: &cursor) {
                    guard let operation = try Self.operation(&parser) else {
                        parser.reset(to: start)
                        return .other(try parser.readValue())
                    }
                    lists.scratch.append(operation)
                }
                return .read(lists.list(ofText: parser.text(since: start)))
            }
            return .other(try parser.readValue())
        }

        /// The operation that is the next value, or `nil` when it is none (read in part).
        private static func operation(_ parser: inout JSONParser) throws(JSONParseError) -> NavigationOperation? {
            if let name = try parser.readString() {
                switch name {
                case "none": return NavigationOperation.none
                case "pop": return .pop
                case "popToRoot": return .popToRoot
                default: return nil
                }
            }
            guard try parser.enterObject() else { return nil }
            var cursor = JSONContainerCursor()
            guard let key = try parser.nextMember(in: &cursor), let screen = try parser.readString(),
                try parser.nextMember(in: &cursor) == nil
            else { return nil }
            switch key.unescapedBytes.map(Field.init) ?? key.withBytes(Field.init) {
            case .push: return .push(screen)
            case .popTo: return .popTo(screen)
            case .replace: return .replace(screen)
            case .setRoot: return .setRoot(screen)
            default: return nil
            }
        }
    }

    /// The record of a line's JSON `body`, as archive format version `formatVersion` writes it
    /// (see ``SessionArchive/Record``).
    ///
    /// - Throws: `JSONParseError` when the body is not JSON, ``JSONShapeError`` naming the member
    ///   that is missing or not of its type.
    init(jsonBody body: some Collection<UInt8>, formatVersion: Int) throws {
        var memory = RecordLineMemory()
        try self.init(jsonBody: body, formatVersion: formatVersion, remembering: &memory)
    }

    /// The record of a line's JSON `body`, as ``init(jsonBody:formatVersion:)``, its strings and
    /// lists kept in `memory` (a reader of many lines keeps one).
    init(
        jsonBody body: some Collection<UInt8>, formatVersion: Int, remembering memory: inout RecordLineMemory
    ) throws {
        // The members come back from the reading as a value of their own, a `let`: captured and
        // changed by the reading closure, each member was copied out of them and destroyed again
        // as it was checked (~1,000 instructions a record line; callgrind, Benchmarks/HISTORY.md
        // 2026-12-02).
        func read(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<Members?, JSONParseError> {
            Result { () throws(JSONParseError) -> Members? in
                try Members.read(buffer, formatVersion: formatVersion, memory: &memory)
            }
        }
        guard
            let members = try (body.withContiguousStorageIfAvailable(read) ?? Array(body).withUnsafeBufferPointer(read))
                .get()
        else { throw JSONShapeError(path: [], expected: "an object") }
        func member(_ key: String, _ value: JSONValue?) throws(JSONShapeError) -> JSONValue {
            guard let value else { throw JSONShapeError(path: [], expected: "a member '\(key)'") }
            return value
        }
        func string(_ key: String, _ member: Member<String>) throws(JSONShapeError) -> String {
            switch member {
            case .absent: throw JSONShapeError(path: [], expected: "a member '\(key)'")
            case .read(let string): return string
            case .other(let value): return try JSONShape.string(value, at: [key])
            }
        }
        func list(_ key: String, _ member: Member<[String]>) throws(JSONShapeError) -> [String] {
            switch member {
            case .absent: throw JSONShapeError(path: [], expected: "a member '\(key)'")
            case .read(let strings): return strings
            case .other(let value): return try JSONShape.strings(value, at: [key])
            }
        }
        /// `nil` when absent or `null`.
        func optional(_ value: JSONValue?) -> JSONValue? {
            value.flatMap { $0 == .null ? nil : $0 }
        }
        version = try JSONShape.uint64(try member("version", members.version), at: ["version"])
        sequence = try JSONShape.uint64(try member("sequence", members.sequence), at: ["sequence"])
        timestamp = try JSONShape.int64(try member("timestamp", members.timestamp), at: ["timestamp"])
        machine = try string("machine", members.machine)
        definition = try string("definition", members.definition)
        event = try string("event", members.event)
        source = try list("source", members.source)
        target = try list("target", members.target)
        origin = try optional(members.origin).map(Self.origin)
        redacted =
            try optional(members.redacted).map { value throws(JSONShapeError) in
                try JSONShape.bool(value, at: ["redacted"])
            } ?? false
        recordedState = members.recordedState
        switch members.navigation {
        case .absent: throw JSONShapeError(path: [], expected: "a member 'navigation'")
        case .read(let operations): navigation = operations
        case .other(let value) where formatVersion == 1: navigation = try Self.legacyNavigation(value)
        case .other(let value):
            let operations = try JSONShape.array(value, at: ["navigation"])
            navigation = []
            navigation.reserveCapacity(operations.count)
            for (index, operation) in operations.enumerated() {
                navigation.append(try ArchiveNavigation(json: operation, at: ["navigation", String(index)]).operation)
            }
        }
        if formatVersion == 1 {
            payload = try Self.base64(try member("payload", members.payload), at: "payload")
            stateData = try Self.base64(try member("stateData", members.stateData), at: "stateData")
        } else {
            payload = try Self.bytes(json: members.payload, base64: members.payloadBase64, at: "payloadBase64")
            stateData = try Self.bytes(json: members.stateData, base64: members.stateDataBase64, at: "stateDataBase64")
        }
    }

    /// `{"session": ID, "version": N}`.
    static func origin(_ value: JSONValue) throws -> RecordOrigin {
        let fields = try JSONShape.object(value, at: ["origin"])
        let session = try JSONShape.string(
            try JSONShape.member("session", of: fields, at: ["origin"]), at: ["origin", "session"])
        let version = try JSONShape.uint64(
            try JSONShape.member("version", of: fields, at: ["origin"]), at: ["origin", "version"])
        guard let id = try? SessionID(session) else {
            throw JSONShapeError(path: ["origin", "session"], expected: "a valid session id")
        }
        return RecordOrigin(session: id, version: version)
    }

    /// The bytes of a member written as JSON (`null` included: the bytes `null`), else of its
    /// base64 twin (member `key`), else none.
    private static func bytes(json: JSONValue?, base64: JSONValue?, at key: String) throws -> [UInt8] {
        if let json { return try json.jsonBytes() }
        return try base64.map { try Self.base64($0, at: key) } ?? []
    }

    private static func base64(_ value: JSONValue, at key: String) throws(JSONShapeError) -> [UInt8] {
        guard let data = Data(base64Encoded: try JSONShape.string(value, at: [key])) else {
            throw JSONShapeError(path: [key], expected: "a base64 string")
        }
        return Array(data)
    }

    /// Format version 1's operations, as `NavigationOperation`'s own `Codable` form wrote them.
    private static func legacyNavigation(_ value: JSONValue) throws -> [NavigationOperation] {
        try JSONDecoder().decode([NavigationOperation].self, from: Data(value.jsonBytes()))
    }
}

extension SessionArchive.Header {
    /// The header of a line's JSON `body` (line 1), read as the record lines are.
    ///
    /// - Throws: `JSONParseError` when the body is not JSON, ``JSONShapeError`` naming the member
    ///   that is missing or not of its type.
    init(jsonBody body: some Collection<UInt8>) throws {
        let members = try JSONShape.object(try JSONValue(jsonBytes: body), at: [])
        func member(_ key: String, of members: [String: JSONValue], at path: [String] = []) throws(JSONShapeError)
            -> JSONValue
        {
            try JSONShape.member(key, of: members, at: path)
        }
        format = try JSONShape.string(try member("format", of: members), at: ["format"])
        let formatVersion = try JSONShape.int64(try member("formatVersion", of: members), at: ["formatVersion"])
        guard let formatVersion = Int(exactly: formatVersion) else {
            throw JSONShapeError(path: ["formatVersion"], expected: "an integer in the range of Int")
        }
        self.formatVersion = formatVersion
        session = try JSONShape.string(try member("session", of: members), at: ["session"])
        machine = try JSONShape.string(try member("machine", of: members), at: ["machine"])
        records = try JSONShape.uint64(try member("records", of: members), at: ["records"])
        let entries = try JSONShape.array(try member("definitions", of: members), at: ["definitions"])
        definitions = []
        definitions.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            let path = ["definitions", String(index)]
            let fields = try JSONShape.object(entry, at: path)
            definitions.append(
                Definition(
                    version: try JSONShape.string(try member("version", of: fields, at: path), at: path + ["version"]),
                    document: try member("document", of: fields, at: path)))
        }
        if let base = members["base"], base != .null {
            let fields = try JSONShape.object(base, at: ["base"])
            self.base = Base(
                version: try JSONShape.uint64(
                    try member("version", of: fields, at: ["base"]), at: ["base", "version"]),
                state: try member("state", of: fields, at: ["base"]))
        } else {
            base = nil
        }
    }
}

extension SessionArchive.Trailer {
    /// The trailer of a line's JSON `body` (the last line), read as the record lines are.
    ///
    /// - Throws: `JSONParseError` when the body is not JSON, ``JSONShapeError`` naming the member
    ///   that is missing or not of its type.
    init(jsonBody body: some Collection<UInt8>) throws {
        let members = try JSONShape.object(try JSONValue(jsonBytes: body), at: [])
        end = try JSONShape.string(try JSONShape.member("end", of: members, at: []), at: ["end"])
        records = try JSONShape.uint64(try JSONShape.member("records", of: members, at: []), at: ["records"])
        checksum = try JSONShape.string(try JSONShape.member("checksum", of: members, at: []), at: ["checksum"])
    }
}

extension SessionArchive {
    /// The record of envelope line `number` (`line` without its newline), as archive format
    /// version `formatVersion` writes it. A reader of many lines keeps one `memory`: the lines
    /// repeat their machine, definition, states, events and lists, and each is made once (see
    /// ``RecordLineMemory``).
    ///
    /// - Throws: ``SessionArchiveError/malformedLine(line:reason:cause:)`` when the envelope or
    ///   its checksum is wrong, or the body is not a record (its cause the `JSONParseError` or
    ///   ``JSONShapeError``).
    static func record(
        ofLine line: ArraySlice<UInt8>, number: Int, formatVersion: Int,
        remembering memory: inout RecordLineMemory
    ) throws -> Record {
        let body = try body(of: line, number: number)
        do {
            return try Record(jsonBody: body, formatVersion: formatVersion, remembering: &memory)
        } catch {
            throw SessionArchiveError.malformedLine(
                line: number, reason: "its body does not decode: \(error)", cause: ErrorCause(error))
        }
    }
}

import Foundation
import RewindMachine
import RewindStore
@_spi(Internals) import RewindValues

/// Reading an archive's line bodies: parsed with RewindValues' JSON parser and read with
/// ``JSONShape``, a record line's members taken as the parser meets them
/// (``JSONValue/parseMembers(ofObject:_:)``, no dictionary of the object). `JSONDecoder` and
/// `Decodable` cost about 115,000 instructions a record line and 4 million a header, most of an
/// import's time (Benchmarks/HISTORY.md, "Archive import without JSONDecoder" and "Archive
/// import: members as the parser meets them"). The record lines' writer is
/// `SessionArchive+RecordJSON.swift`.
extension SessionArchive.Record {
    /// The members of a record line's body this reader knows; the others are ignored.
    private struct Members {
        var version, sequence, timestamp, machine, definition, event, source, target: JSONValue?
        var navigation, origin, redacted, recordedState: JSONValue?
        var payload, payloadBase64, stateData, stateDataBase64: JSONValue?

        /// Keeps `value` when `key` (UTF-8) is a member of a record (the last of a repeated key
        /// wins).
        mutating func take(_ key: UnsafeBufferPointer<UInt8>, _ value: JSONValue) {
            // The key's bytes, lengths first: no String is made for it, and a name of another
            // length costs one comparison of integers (a `switch` over String names was 2,100
            // instructions a record line, the keys' Strings as much again; callgrind,
            // Benchmarks/HISTORY.md 2026-11-30).
            // Inlined, so that each name's length is a constant its comparison starts with.
            @inline(__always) func named(_ name: StaticString) -> Bool {
                UnsafeRawBufferPointer(key).equals(
                    UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            }
            if named("version") {
                version = value
            } else if named("sequence") {
                sequence = value
            } else if named("timestamp") {
                timestamp = value
            } else if named("machine") {
                machine = value
            } else if named("definition") {
                definition = value
            } else if named("event") {
                event = value
            } else if named("source") {
                source = value
            } else if named("target") {
                target = value
            } else if named("navigation") {
                navigation = value
            } else if named("origin") {
                origin = value
            } else if named("redacted") {
                redacted = value
            } else if named("recordedState") {
                recordedState = value
            } else if named("payload") {
                payload = value
            } else if named("payloadBase64") {
                payloadBase64 = value
            } else if named("stateData") {
                stateData = value
            } else if named("stateDataBase64") {
                stateDataBase64 = value
            }
        }
    }

    /// The record of a line's JSON `body`, as archive format version `formatVersion` writes it
    /// (see ``SessionArchive/Record``).
    ///
    /// - Throws: `JSONParseError` when the body is not JSON, ``JSONShapeError`` naming the member
    ///   that is missing or not of its type.
    init(jsonBody body: some Collection<UInt8>, formatVersion: Int) throws {
        var strings = JSONValue.stringMemory()
        try self.init(jsonBody: body, formatVersion: formatVersion, remembering: &strings)
    }

    /// The record of a line's JSON `body`, as ``init(jsonBody:formatVersion:)``, its strings
    /// interned in `strings` (a reader of many lines keeps one table).
    init(
        jsonBody body: some Collection<UInt8>, formatVersion: Int, remembering strings: inout UTF8KeyTable
    ) throws {
        var members = Members()
        guard try JSONValue.parseMembers(ofObject: body, remembering: &strings, { members.take($0, $1) }) else {
            throw JSONShapeError(path: [], expected: "an object")
        }
        func member(_ key: String, _ value: JSONValue?) throws(JSONShapeError) -> JSONValue {
            guard let value else { throw JSONShapeError(path: [], expected: "a member '\(key)'") }
            return value
        }
        /// `nil` when absent or `null`.
        func optional(_ value: JSONValue?) -> JSONValue? {
            value.flatMap { $0 == .null ? nil : $0 }
        }
        version = try JSONShape.uint64(try member("version", members.version), at: ["version"])
        sequence = try JSONShape.uint64(try member("sequence", members.sequence), at: ["sequence"])
        timestamp = try JSONShape.int64(try member("timestamp", members.timestamp), at: ["timestamp"])
        machine = try JSONShape.string(try member("machine", members.machine), at: ["machine"])
        definition = try JSONShape.string(try member("definition", members.definition), at: ["definition"])
        event = try JSONShape.string(try member("event", members.event), at: ["event"])
        source = try JSONShape.strings(try member("source", members.source), at: ["source"])
        target = try JSONShape.strings(try member("target", members.target), at: ["target"])
        origin = try optional(members.origin).map(Self.origin)
        redacted =
            try optional(members.redacted).map { value throws(JSONShapeError) in
                try JSONShape.bool(value, at: ["redacted"])
            } ?? false
        recordedState = members.recordedState
        if formatVersion == 1 {
            navigation = try Self.legacyNavigation(try member("navigation", members.navigation))
            payload = try Self.base64(try member("payload", members.payload), at: "payload")
            stateData = try Self.base64(try member("stateData", members.stateData), at: "stateData")
        } else {
            let operations = try JSONShape.array(try member("navigation", members.navigation), at: ["navigation"])
            navigation = []
            navigation.reserveCapacity(operations.count)
            for (index, operation) in operations.enumerated() {
                navigation.append(try ArchiveNavigation(json: operation, at: ["navigation", String(index)]).operation)
            }
            payload = try Self.bytes(json: members.payload, base64: members.payloadBase64, at: "payloadBase64")
            stateData = try Self.bytes(json: members.stateData, base64: members.stateDataBase64, at: "stateDataBase64")
        }
    }

    /// `{"session": ID, "version": N}`.
    private static func origin(_ value: JSONValue) throws -> RecordOrigin {
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
    /// version `formatVersion` writes it. A reader of many lines keeps one `strings`: the lines
    /// repeat their machine, definition, states and events, and each is made once (interned in
    /// the table).
    ///
    /// - Throws: ``SessionArchiveError/malformedLine(line:reason:cause:)`` when the envelope or
    ///   its checksum is wrong, or the body is not a record (its cause the `JSONParseError` or
    ///   ``JSONShapeError``).
    static func record(
        ofLine line: ArraySlice<UInt8>, number: Int, formatVersion: Int,
        remembering strings: inout UTF8KeyTable
    ) throws -> Record {
        let body = try body(of: line, number: number)
        do {
            return try Record(jsonBody: body, formatVersion: formatVersion, remembering: &strings)
        } catch {
            throw SessionArchiveError.malformedLine(
                line: number, reason: "its body does not decode: \(error)", cause: ErrorCause(error))
        }
    }
}

import Foundation
import RewindMachine
import RewindStore
import RewindValues

/// Reading a record line's body: parsed with RewindValues' JSON parser and read member by member
/// with ``JSONShape`` (`JSONDecoder` and `Decodable` cost about 115,000 instructions a record line,
/// most of an import's time; HISTORY.md, "Archive import without JSONDecoder"). The writer is
/// `SessionArchive+RecordJSON.swift`.
extension SessionArchive.Record {
    /// The record of a line's JSON `body`, as archive format version `formatVersion` writes it
    /// (see ``SessionArchive/Record``).
    ///
    /// - Throws: `JSONParseError` when the body is not JSON, ``JSONShapeError`` naming the member
    ///   that is missing or not of its type.
    init(jsonBody body: some Collection<UInt8>, formatVersion: Int) throws {
        let members = try JSONShape.object(try JSONValue(jsonBytes: body), at: [])
        func member(_ key: String) throws(JSONShapeError) -> JSONValue {
            try JSONShape.member(key, of: members, at: [])
        }
        /// `nil` when absent or `null`.
        func optional(_ key: String) -> JSONValue? {
            members[key].flatMap { $0 == .null ? nil : $0 }
        }
        version = try JSONShape.uint64(try member("version"), at: ["version"])
        sequence = try JSONShape.uint64(try member("sequence"), at: ["sequence"])
        timestamp = try JSONShape.int64(try member("timestamp"), at: ["timestamp"])
        machine = try JSONShape.string(try member("machine"), at: ["machine"])
        definition = try JSONShape.string(try member("definition"), at: ["definition"])
        event = try JSONShape.string(try member("event"), at: ["event"])
        source = try JSONShape.strings(try member("source"), at: ["source"])
        target = try JSONShape.strings(try member("target"), at: ["target"])
        origin = try optional("origin").map(Self.origin)
        redacted =
            try optional("redacted").map { value throws(JSONShapeError) in
                try JSONShape.bool(value, at: ["redacted"])
            } ?? false
        recordedState = members["recordedState"]
        if formatVersion == 1 {
            navigation = try Self.legacyNavigation(try member("navigation"))
            payload = try Self.base64(try member("payload"), at: "payload")
            stateData = try Self.base64(try member("stateData"), at: "stateData")
        } else {
            let operations = try JSONShape.array(try member("navigation"), at: ["navigation"])
            navigation = []
            navigation.reserveCapacity(operations.count)
            for (index, operation) in operations.enumerated() {
                navigation.append(try ArchiveNavigation(json: operation, at: ["navigation", String(index)]).operation)
            }
            payload = try Self.bytes(members, json: "payload", base64: "payloadBase64")
            stateData = try Self.bytes(members, json: "stateData", base64: "stateDataBase64")
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
    /// base64 twin, else none.
    private static func bytes(_ members: [String: JSONValue], json: String, base64: String) throws -> [UInt8] {
        if let value = members[json] { return try value.jsonBytes() }
        return try members[base64].map { try Self.base64($0, at: base64) } ?? []
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

extension SessionArchive {
    /// The record of envelope line `number` (`line` without its newline), as archive format
    /// version `formatVersion` writes it.
    ///
    /// - Throws: ``SessionArchiveError/malformedLine(line:reason:cause:)`` when the envelope or
    ///   its checksum is wrong, or the body is not a record (its cause the `JSONParseError` or
    ///   ``JSONShapeError``).
    static func record(ofLine line: ArraySlice<UInt8>, number: Int, formatVersion: Int) throws -> Record {
        let body = try body(of: line, number: number)
        do {
            return try Record(jsonBody: body, formatVersion: formatVersion)
        } catch {
            throw SessionArchiveError.malformedLine(
                line: number, reason: "its body does not decode: \(error)", cause: ErrorCause(error))
        }
    }
}

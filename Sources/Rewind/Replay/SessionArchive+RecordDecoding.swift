import Foundation
import RewindMachine
import RewindStore
import RewindValues

/// Reading a record line's body: parsed with RewindValues' JSON parser and read member by member
/// (`JSONDecoder` and `Decodable` cost about 115,000 instructions a record line, most of an
/// import's time; HISTORY.md, "Archive import without JSONDecoder"). The writer is
/// `SessionArchive+RecordJSON.swift`.
extension SessionArchive.Record {
    /// The record of a line's JSON `body`, as archive format version `formatVersion` writes it
    /// (see ``SessionArchive/Record``).
    ///
    /// - Throws: ``SessionArchive/RecordLineError``: the body is not JSON, or a member is missing
    ///   or not of its type.
    init(jsonBody body: some Collection<UInt8>, formatVersion: Int) throws(SessionArchive.RecordLineError) {
        let value: JSONValue
        do {
            value = try JSONValue(jsonBytes: body)
        } catch {
            throw .notJSON(error)
        }
        guard case .object(let members) = value else { throw .notAnObject }
        let reader = MemberReader(members: members)
        version = try reader.unsigned("version")
        sequence = try reader.unsigned("sequence")
        timestamp = try reader.signed("timestamp")
        machine = try reader.string("machine")
        definition = try reader.string("definition")
        event = try reader.string("event")
        source = try reader.strings("source")
        target = try reader.strings("target")
        origin = try reader.origin("origin")
        redacted = try reader.optionalBool("redacted") ?? false
        recordedState = members["recordedState"]
        if formatVersion == 1 {
            navigation = try reader.legacyNavigation("navigation")
            payload = try reader.base64("payload") ?? []
            stateData = try reader.base64("stateData") ?? []
        } else {
            navigation = try reader.navigation("navigation")
            payload = try reader.bytes(json: "payload", base64: "payloadBase64")
            stateData = try reader.bytes(json: "stateData", base64: "stateDataBase64")
        }
    }
}

extension SessionArchive {
    /// The record of envelope line `number` (`line` without its newline), as archive format
    /// version `formatVersion` writes it.
    ///
    /// - Throws: ``SessionArchiveError/malformedLine(line:reason:cause:)`` when the envelope or
    ///   its checksum is wrong, or the body is not a record (its cause a ``RecordLineError``).
    static func record(ofLine line: ArraySlice<UInt8>, number: Int, formatVersion: Int) throws -> Record {
        let body = try body(of: line, number: number)
        do {
            return try Record(jsonBody: body, formatVersion: formatVersion)
        } catch {
            throw SessionArchiveError.malformedLine(
                line: number, reason: "its body does not decode: \(error)", cause: ErrorCause(error))
        }
    }

    /// Why a record line's body is not a record.
    struct RecordLineError: Error, Equatable, CustomStringConvertible {
        /// The member at fault (`nil`: the body as a whole).
        var member: String?
        /// What is wrong with it.
        var problem: String

        static func notJSON(_ error: JSONParseError) -> Self {
            Self(member: nil, problem: "it is not JSON: \(error)")
        }

        static var notAnObject: Self { Self(member: nil, problem: "it is not a JSON object") }

        var description: String {
            member.map { "its member '\($0)' \(problem)" } ?? problem
        }
    }
}

/// Reads a record line's members by name, each as its type (a ``SessionArchive/RecordLineError``
/// names the member otherwise).
private struct MemberReader {
    let members: [String: JSONValue]

    private func required(_ name: String) throws(SessionArchive.RecordLineError) -> JSONValue {
        guard let value = members[name] else { throw .init(member: name, problem: "is missing") }
        return value
    }

    private func wrong(_ name: String, _ expected: String) -> SessionArchive.RecordLineError {
        .init(member: name, problem: "is not \(expected)")
    }

    func unsigned(_ name: String) throws(SessionArchive.RecordLineError) -> UInt64 {
        guard case .number(let number) = try required(name), let value = number.uint64Value else {
            throw wrong(name, "an unsigned 64-bit integer")
        }
        return value
    }

    func signed(_ name: String) throws(SessionArchive.RecordLineError) -> Int64 {
        guard case .number(let number) = try required(name), let value = number.int64Value else {
            throw wrong(name, "a signed 64-bit integer")
        }
        return value
    }

    func string(_ name: String) throws(SessionArchive.RecordLineError) -> String {
        guard case .string(let value) = try required(name) else { throw wrong(name, "a string") }
        return value
    }

    func strings(_ name: String) throws(SessionArchive.RecordLineError) -> [String] {
        guard case .array(let elements) = try required(name) else { throw wrong(name, "an array of strings") }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let value) = element else { throw wrong(name, "an array of strings") }
            strings.append(value)
        }
        return strings
    }

    /// `nil` when absent or `null`.
    func optionalBool(_ name: String) throws(SessionArchive.RecordLineError) -> Bool? {
        guard let value = members[name], value != .null else { return nil }
        guard case .bool(let flag) = value else { throw wrong(name, "true or false") }
        return flag
    }

    /// `{"session": ID, "version": N}`, or `nil` when absent or `null`.
    func origin(_ name: String) throws(SessionArchive.RecordLineError) -> RecordOrigin? {
        guard let value = members[name], value != .null else { return nil }
        guard case .object(let fields) = value, case .string(let session)? = fields["session"],
            case .number(let number)? = fields["version"], let version = number.uint64Value
        else {
            throw wrong(name, #"an origin, {"session": ID, "version": N}"#)
        }
        do {
            return RecordOrigin(session: try SessionID(session), version: version)
        } catch {
            throw .init(member: name, problem: "names an invalid session: \(error)")
        }
    }

    /// The bytes of a JSON member written as JSON (`null` included), else of its base64 twin, else
    /// none.
    func bytes(json: String, base64: String) throws(SessionArchive.RecordLineError) -> [UInt8] {
        if let value = members[json] {
            do {
                return try value.jsonBytes()
            } catch {
                throw .init(member: json, problem: "cannot be written back as JSON: \(error)")
            }
        }
        return try self.base64(base64) ?? []
    }

    func base64(_ name: String) throws(SessionArchive.RecordLineError) -> [UInt8]? {
        guard let value = members[name] else { return nil }
        guard case .string(let text) = value, let data = Data(base64Encoded: text) else {
            throw wrong(name, "a base64 string")
        }
        return Array(data)
    }

    /// Format version 2's operations (``ArchiveNavigation``).
    func navigation(_ name: String) throws(SessionArchive.RecordLineError) -> [NavigationOperation] {
        guard case .array(let elements) = try required(name) else { throw wrong(name, "an array") }
        var operations: [NavigationOperation] = []
        operations.reserveCapacity(elements.count)
        for element in elements {
            do {
                operations.append(try ArchiveNavigation(json: element).operation)
            } catch {
                throw .init(member: name, problem: "holds an operation that is not one: \(error.reason)")
            }
        }
        return operations
    }

    /// Format version 1's operations, as `NavigationOperation`'s own `Codable` form wrote them.
    func legacyNavigation(_ name: String) throws(SessionArchive.RecordLineError) -> [NavigationOperation] {
        let value = try required(name)
        do {
            return try JSONDecoder().decode([NavigationOperation].self, from: Data(value.jsonBytes()))
        } catch {
            throw .init(member: name, problem: "is not an array of navigation operations: \(error)")
        }
    }
}

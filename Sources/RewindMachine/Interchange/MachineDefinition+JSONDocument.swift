import Foundation

extension MachineDefinition {
    /// The value of the interchange document's `format` key.
    public static let jsonDocumentFormat = "rewind.machine"

    /// The interchange document version this version of Rewind writes and reads.
    public static let jsonDocumentFormatVersion = 1

    /// The definition as a stable, versioned JSON document:
    ///
    /// ```json
    /// {
    ///   "format" : "rewind.machine",
    ///   "formatVersion" : 1,
    ///   "machine" : {
    ///     "initial" : [ "idle" ],
    ///     "name" : "door",
    ///     "states" : [ { "id" : "idle", "transitions" : [ { "events" : [ "open" ], "targets" : [ "open" ] } ] }, ... ]
    ///   }
    /// }
    /// ```
    ///
    /// Pretty-printed with sorted keys, default values omitted and enums as tagged objects
    /// (`{"inState": "a"}`), so the same definition always encodes to the same bytes; equal
    /// definitions encode identically. ``contentVersion`` hashes these bytes.
    public func jsonDocument() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(JSONDocument(machine: self))
        } catch {
            // JSONEncoder only fails on non-finite floating-point numbers; a definition has none.
            fatalError("Encoding a MachineDefinition cannot fail, yet it did: \(error)")
        }
    }

    /// Reads a JSON interchange document written by ``jsonDocument()``.
    ///
    /// - Throws: ``JSONDocumentError``: ``JSONDocumentError/notAMachineDocument(found:)`` when
    ///   `format` is missing or wrong, ``JSONDocumentError/unsupportedFormatVersion(_:supported:)``
    ///   for another `formatVersion`, ``JSONDocumentError/malformed(path:reason:)`` with the coding
    ///   path of the first bad value (unknown keys are refused too).
    public init(jsonDocument data: Data) throws(JSONDocumentError) {
        let decoder = JSONDecoder()
        let header: JSONDocumentHeader
        do {
            header = try decoder.decode(JSONDocumentHeader.self, from: data)
        } catch {
            throw Self.documentError(error)
        }
        guard header.format == Self.jsonDocumentFormat else {
            throw .notAMachineDocument(found: header.format)
        }
        guard let version = header.formatVersion else {
            throw .malformed(path: "formatVersion", reason: "missing")
        }
        guard version == Self.jsonDocumentFormatVersion else {
            throw .unsupportedFormatVersion(version, supported: Self.jsonDocumentFormatVersion)
        }
        do {
            self = try decoder.decode(JSONDocument.self, from: data).machine
        } catch {
            throw Self.documentError(error)
        }
    }

    /// A name for this exact definition: the SHA-256 of ``jsonDocument()``, as 64 lowercase hex
    /// digits. Equal definitions have equal content versions; any change to any state,
    /// transition, action or name changes it.
    public var contentVersion: String {
        SHA256.hexDigest(of: jsonDocument())
    }

    private static func documentError(_ error: any Error) -> JSONDocumentError {
        guard let decodingError = error as? DecodingError else {
            return .malformed(path: "", reason: "\(error)")
        }
        func path(_ codingPath: [any CodingKey]) -> String {
            var result = ""
            for key in codingPath {
                if let index = key.intValue {
                    result += "[\(index)]"
                } else {
                    result += (result.isEmpty ? "" : ".") + key.stringValue
                }
            }
            return result
        }
        switch decodingError {
        case .typeMismatch(let type, let context):
            return .malformed(path: path(context.codingPath), reason: "expected \(type): \(context.debugDescription)")
        case .valueNotFound(let type, let context):
            return .malformed(path: path(context.codingPath), reason: "missing \(type) value")
        case .keyNotFound(let key, let context):
            return .malformed(path: path(context.codingPath + [key]), reason: "missing key '\(key.stringValue)'")
        case .dataCorrupted(let context):
            let underlying = context.underlyingError.map { " (\($0))" } ?? ""
            return .malformed(path: path(context.codingPath), reason: context.debugDescription + underlying)
        @unknown default:
            return .malformed(path: "", reason: "\(decodingError)")
        }
    }
}

/// The envelope of the interchange document.
private struct JSONDocument: Codable {
    var machine: MachineDefinition

    init(machine: MachineDefinition) {
        self.machine = machine
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: InterchangeCodingKey.self)
        try container.rejectUnknownKeys(["format", "formatVersion", "machine"])
        machine = try container.decode(MachineDefinition.self, forKey: "machine")
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: InterchangeCodingKey.self)
        try container.encode(MachineDefinition.jsonDocumentFormat, forKey: "format")
        try container.encode(MachineDefinition.jsonDocumentFormatVersion, forKey: "formatVersion")
        try container.encode(machine, forKey: "machine")
    }
}

/// The envelope's identification, read first so that a newer document fails with a version
/// error rather than with whatever changed inside it.
private struct JSONDocumentHeader: Decodable {
    var format: String?
    var formatVersion: Int?
}

/// Why a JSON interchange document could not be read (see
/// ``MachineDefinition/init(jsonDocument:)``).
public enum JSONDocumentError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes are not a JSON object with `"format": "rewind.machine"`; `found` is the format
    /// named, if any.
    case notAMachineDocument(found: String?)
    /// The document's `formatVersion` is not one this version of Rewind reads.
    case unsupportedFormatVersion(Int, supported: Int)
    /// The document is not valid JSON, or a value is missing or of the wrong shape. `path` is the
    /// coding path of the offending value (`machine.states[2].transitions[0].condition`),
    /// `reason` what is wrong with it.
    case malformed(path: String, reason: String)

    /// A one-line message naming the problem and where it is.
    public var description: String {
        switch self {
        case .notAMachineDocument(let found):
            return "not a Rewind machine document: expected \"format\": \"rewind.machine\", found "
                + (found.map { "\"\($0)\"" } ?? "no format")
        case .unsupportedFormatVersion(let version, let supported):
            return "unsupported machine document formatVersion \(version) (this version of Rewind reads \(supported))"
        case .malformed(let path, let reason):
            return "malformed machine document at \(path.isEmpty ? "the top level" : path): \(reason)"
        }
    }
}

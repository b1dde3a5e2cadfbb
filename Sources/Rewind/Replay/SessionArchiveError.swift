import RewindStore

/// Why a session archive (see ``SessionArchive``) cannot be imported or a session exported. An
/// import that throws has written nothing.
public enum SessionArchiveError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file ends before line `line` (the archive announced more records, or its trailer is
    /// missing), or line `line` is cut short (no final newline).
    case truncated(line: Int, reason: String)
    /// Line `line`'s checksum does not match its content: it was changed after export.
    case checksumMismatch(line: Int, stored: UInt32, computed: UInt32)
    /// Line `line` is not what the format allows there; `cause` is the decoder's error when one
    /// said why (its text is part of `reason` too).
    case malformedLine(line: Int, reason: String, cause: ErrorCause? = nil)
    /// The archive is of another format or a newer format version (line 1).
    case unsupportedFormat(format: String, version: Int)
    /// Line `line` holds version `found` where version `expected` belongs (a gap or reordering).
    case versionGap(line: Int, expected: UInt64, found: UInt64)
    /// The trailer (line `line`) does not match the lines before it.
    case trailerMismatch(line: Int, reason: String)
    /// Line `line` is longer than `limit` bytes (``SessionArchive/maximumLineBytes``); the file
    /// was read no further.
    case lineTooLong(line: Int, limit: Int)
    /// Exporting: the definition the records name is not in the store.
    case missingDefinition(machine: String, version: String)
    /// Line `line` (the session's version `version`) enters `state`, which is no state of the
    /// definition it names (content version `definition`): the records were forged or damaged.
    case unknownState(line: Int, version: UInt64, state: String, definition: String)

    /// The 1-based line at fault, when there is one.
    public var line: Int? {
        switch self {
        case .truncated(let line, _), .checksumMismatch(let line, _, _), .malformedLine(let line, _, _),
            .versionGap(let line, _, _), .trailerMismatch(let line, _), .lineTooLong(let line, _),
            .unknownState(let line, _, _, _):
            return line
        case .unsupportedFormat:
            return 1
        case .missingDefinition:
            return nil
        }
    }

    /// A one-line explanation naming what failed and where.
    public var description: String {
        switch self {
        case .truncated(let line, let reason):
            return "session archive truncated at line \(line): \(reason); nothing was imported"
        case .checksumMismatch(let line, let stored, let computed):
            return "session archive line \(line) was altered: its checksum is \(SessionArchive.hex(stored)) "
                + "but its content gives \(SessionArchive.hex(computed)); nothing was imported"
        case .malformedLine(let line, let reason, _):
            return "session archive line \(line) is malformed: \(reason); nothing was imported"
        case .unsupportedFormat(let format, let version):
            return "unsupported session archive '\(format)' version \(version) at line 1: this Rewind reads "
                + "'\(SessionArchive.format)' versions \(SessionArchive.readableFormatVersions.lowerBound) to "
                + "\(SessionArchive.readableFormatVersions.upperBound); nothing was imported"
        case .versionGap(let line, let expected, let found):
            return "session archive line \(line) holds version \(found) where version \(expected) belongs; "
                + "nothing was imported"
        case .trailerMismatch(let line, let reason):
            return "session archive trailer (line \(line)) does not match the archive: \(reason); nothing was imported"
        case .lineTooLong(let line, let limit):
            return
                "session archive line \(line) is longer than \(limit) bytes: not a session archive; nothing was imported"
        case .unknownState(let line, let version, let state, let definition):
            return "session archive line \(line) (version \(version)) enters state '\(state)', which is no state of "
                + "its definition \(definition.prefix(12)); nothing was imported"
        case .missingDefinition(let machine, let version):
            return "cannot export: the definition \(version.prefix(12)) of machine '\(machine)' is not in the store"
        }
    }
}

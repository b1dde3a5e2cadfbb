import Rewind

/// What the command line reports as one line on standard error, with exit status
/// ``exitStatus``: 64 (`EX_USAGE`) for a usage error, 2 otherwise.
enum CLIError: Error, CustomStringConvertible {
    case noStore(String)
    /// `--store` names a file: a store is a directory.
    case storeIsAFile(String)
    case unknownSession(String)
    case badVersion(String, head: UInt64, first: UInt64)
    /// A machine name that is no machine of the store nor an example; `known` lists the valid names.
    case unknownMachine(String, known: [String])
    /// A projection name that is not registered; `known` lists the valid names.
    case unknownProjection(String, known: [String])
    /// An import or fork whose session id is taken in the store; `command` is `import` or `fork`.
    case sessionExists(String, command: String)
    /// A file that cannot be written, and why.
    case unwritableFile(String, reason: String)
    /// A usage error (exit status 64, as ArgumentParser's own): options that cannot be used
    /// together, an option that cannot apply, a value out of its range; says what to do.
    case usage(String)
    /// A file or directory operation (`operation`: "delete", "read the directory", …) on `path`
    /// that the file system refused, and why in words (``FileProblem/reason(for:)``).
    case fileSystem(String, operation: String, reason: String)
    case unreadableFile(String, reason: String)
    /// A machine definition file that is not a valid machine: its problems, each one line.
    case invalidDefinition(String, problems: [String])
    /// `demo --fresh` on a path that is not a store (or is the current directory): it was left
    /// untouched.
    case notRemovable(String, reason: String)
    /// A fleet server (`--server`) that could not be reached, or answered with an error: the URL
    /// asked, the HTTP status (0 when there was no answer) and what it said.
    case server(String, status: Int, message: String)

    /// The exit status: 64 (`EX_USAGE`) for a usage error (``usage(_:)``), else 2. A session or
    /// version the store does not have (``unknownSession(_:)``, ``badVersion(_:head:)``) is checked
    /// against the store's contents: an error, not a usage error.
    var exitStatus: Int32 {
        switch self {
        case .usage: return 64
        default: return 2
        }
    }

    var description: String {
        switch self {
        case .noStore(let path):
            return "no store at '\(path)': run `rewind demo` to create the demo store, "
                + "`rewind import FILE --create` to start one from a session file, or pass --store PATH"
        case .unknownSession(let id):
            return "unknown session '\(DisplayText.excerpt(id))': `rewind sessions` lists the sessions of the store"
        case .badVersion(let text, let head, let first):
            return "bad version '\(text)': versions of this session run from \(first) to \(head)"
                + (first == 0 ? " (0: before its first record)" : "")
        case .unknownMachine(let name, let known):
            return "unknown machine '\(DisplayText.excerpt(name))': give a machine of the store or an example ("
                + known.sorted().joined(separator: ", ") + "), or a .json/.scxml file"
        case .unknownProjection(let name, let known):
            return "unknown projection '\(DisplayText.excerpt(name))': the projections are "
                + known.sorted().joined(separator: ", ")
        case .sessionExists(let id, let command):
            return
                "session '\(DisplayText.excerpt(id))' already exists in the store: \(command) under another id with --as NEWID"
        case .storeIsAFile(let path):
            return "'\(path)' is a file, not a store directory: pass --store with the store's directory"
        case .fileSystem(let path, let operation, let reason):
            return "cannot \(operation) '\(path)': \(reason)"
        case .unwritableFile(let path, let reason):
            return "cannot write '\(path)': \(reason)"
        case .usage(let explanation):
            return explanation
        case .unreadableFile(let path, let reason):
            return "cannot read '\(path)': \(reason)"
        case .invalidDefinition(let path, let problems):
            return "'\(path)' is not a valid machine: " + problems.joined(separator: "; ")
        case .notRemovable(let path, let reason):
            return "refusing to delete '\(path)': \(reason); only a Rewind store is removed by --fresh, "
                + "and nothing was deleted"
        case .server(let url, let status, let message):
            return status == 0
                ? "cannot reach the server at \(url): \(message)"
                : "the server answered \(status) for \(url): \(message)"
        }
    }
}

import Rewind

/// What the command line reports as one line on standard error (with a non-zero exit).
enum CLIError: Error, CustomStringConvertible {
    case noStore(String)
    case unknownSession(String)
    case badVersion(String, head: UInt64)
    /// A machine name that is no machine of the store nor an example; `known` lists the valid names.
    case unknownMachine(String, known: [String])
    /// A projection name that is not registered; `known` lists the valid names.
    case unknownProjection(String, known: [String])
    /// An import or fork whose session id is taken in the store; `command` is `import` or `fork`.
    case sessionExists(String, command: String)
    /// A file that cannot be written, and why.
    case unwritableFile(String, reason: String)
    /// Options that cannot be used together, or an option that cannot apply; says what to do.
    case conflictingOptions(String)
    case unreadableFile(String, reason: String)
    /// A machine definition file that is not a valid machine: its problems, each one line.
    case invalidDefinition(String, problems: [String])
    /// `demo --fresh` on a path that is not a store: it was left untouched.
    case notRemovable(String, reason: String)
    /// A fleet server (`--server`) that could not be reached, or answered with an error: the URL
    /// asked, the HTTP status (0 when there was no answer) and what it said.
    case server(String, status: Int, message: String)

    var description: String {
        switch self {
        case .noStore(let path):
            return "no store at '\(path)': run `rewind demo` to create the demo store, "
                + "`rewind import FILE --create` to start one from a session file, or pass --store PATH"
        case .unknownSession(let id):
            return "unknown session '\(id)': `rewind sessions` lists the sessions of the store"
        case let .badVersion(text, head):
            return "bad version '\(text)': versions of this session run from 1 to \(head)"
        case let .unknownMachine(name, known):
            return "unknown machine '\(name)': give a machine of the store or an example ("
                + known.sorted().joined(separator: ", ") + "), or a .json/.scxml file"
        case let .unknownProjection(name, known):
            return "unknown projection '\(name)': the projections are " + known.sorted().joined(separator: ", ")
        case let .sessionExists(id, command):
            return "session '\(id)' already exists in the store: \(command) under another id with --as NEWID"
        case let .unwritableFile(path, reason):
            return "cannot write '\(path)': \(reason)"
        case .conflictingOptions(let explanation):
            return explanation
        case let .unreadableFile(path, reason):
            return "cannot read '\(path)': \(reason)"
        case let .invalidDefinition(path, problems):
            return "'\(path)' is not a valid machine: " + problems.joined(separator: "; ")
        case let .notRemovable(path, reason):
            return "refusing to delete '\(path)': \(reason); only a Rewind store is removed by --fresh, "
                + "and nothing was deleted"
        case let .server(url, status, message):
            return status == 0
                ? "cannot reach the server at \(url): \(message)"
                : "the server answered \(status) for \(url): \(message)"
        }
    }
}

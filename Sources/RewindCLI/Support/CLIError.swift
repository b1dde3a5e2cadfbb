import Rewind

/// What the command line reports as one line on standard error (with a non-zero exit).
enum CLIError: Error, CustomStringConvertible {
    case noStore(String)
    case unknownSession(String)
    case badVersion(String, head: UInt64)
    case unknownMachine(String)
    case unreadableFile(String, reason: String)
    /// A machine definition file that is not a valid machine: its problems, each one line.
    case invalidDefinition(String, problems: [String])
    /// `demo --fresh` on a path that is not a store: it was left untouched.
    case notRemovable(String, reason: String)

    var description: String {
        switch self {
        case .noStore(let path):
            return "no store at '\(path)': run `rewind demo` to create the demo store, "
                + "`rewind import FILE --create` to start one from a session file, or pass --store PATH"
        case .unknownSession(let id):
            return "unknown session '\(id)': `rewind sessions` lists the sessions of the store"
        case let .badVersion(text, head):
            return "bad version '\(text)': versions of this session run from 1 to \(head)"
        case .unknownMachine(let name):
            return "unknown machine '\(name)': give a machine of the store, an example name, or a .json/.scxml file"
        case let .unreadableFile(path, reason):
            return "cannot read '\(path)': \(reason)"
        case let .invalidDefinition(path, problems):
            return "'\(path)' is not a valid machine: " + problems.joined(separator: "; ")
        case let .notRemovable(path, reason):
            return "refusing to delete '\(path)': \(reason); only a Rewind store is removed by --fresh, "
                + "and nothing was deleted"
        }
    }
}

import RewindValues

/// A navigation operation as a session archive (format version 2) writes it: `"none"`, `"pop"`
/// and `"popToRoot"` as strings, the others as an object of one member naming the screen,
/// `{"push":"detail"}`, `{"popTo":"all"}`, `{"replace":"list"}`, `{"setRoot":"all"}`. Read here;
/// written by the record line's writer (``SessionArchive/Record/writeJSON(into:)``).
struct ArchiveNavigation: Equatable {
    /// The operation.
    var operation: NavigationOperation

    /// Why a JSON value is not an operation.
    struct Invalid: Error {
        var reason: String
    }

    /// The operation `json` writes.
    init(json: JSONValue) throws(Invalid) {
        switch json {
        case .string(let name):
            switch name {
            case "none": operation = .none
            case "pop": operation = .pop
            case "popToRoot": operation = .popToRoot
            default: throw Invalid(reason: "'\(name)' is not a navigation operation (none, pop, popToRoot)")
            }
        case .object(let members):
            guard members.count == 1, let (name, value) = members.first else {
                throw Invalid(
                    reason: "a navigation operation is a string or an object of one member, {\"push\": SCREEN}")
            }
            guard case .string(let screen) = value else {
                throw Invalid(reason: "the screen of '\(name)' is not a string")
            }
            switch name {
            case "push": operation = .push(screen)
            case "popTo": operation = .popTo(screen)
            case "replace": operation = .replace(screen)
            case "setRoot": operation = .setRoot(screen)
            default:
                throw Invalid(reason: "'\(name)' is not a navigation operation (push, popTo, replace, setRoot)")
            }
        default:
            throw Invalid(reason: "a navigation operation is a string or an object of one member, {\"push\": SCREEN}")
        }
    }
}

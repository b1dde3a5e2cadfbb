import RewindValues

/// A navigation operation as a session archive (format version 2) writes it: `"none"`, `"pop"`
/// and `"popToRoot"` as strings, the others as an object of one member naming the screen,
/// `{"push":"detail"}`, `{"popTo":"all"}`, `{"replace":"list"}`, `{"setRoot":"all"}`. Read here;
/// written by the record line's writer (``SessionArchive/Record/writeJSON(into:)``).
struct ArchiveNavigation: Equatable {
    /// The operation.
    var operation: NavigationOperation

    /// The operation `json` writes, at `path` of its record line (for the error).
    ///
    /// - Throws: ``JSONShapeError`` when `json` is no operation.
    init(json: JSONValue, at path: @autoclosure () -> [String]) throws(JSONShapeError) {
        let kinds =
            "a navigation operation (\"none\", \"pop\", \"popToRoot\", or {\"push\"|\"popTo\"|\"replace\"|\"setRoot\": SCREEN})"
        switch json {
        case .string("none"): operation = .none
        case .string("pop"): operation = .pop
        case .string("popToRoot"): operation = .popToRoot
        case .object(let members) where members.count == 1:
            guard let (name, value) = members.first else { throw JSONShapeError(path: path(), expected: kinds) }
            let screen = try JSONShape.string(value, at: path() + [name])
            switch name {
            case "push": operation = .push(screen)
            case "popTo": operation = .popTo(screen)
            case "replace": operation = .replace(screen)
            case "setRoot": operation = .setRoot(screen)
            default: throw JSONShapeError(path: path(), expected: kinds)
            }
        default:
            throw JSONShapeError(path: path(), expected: kinds)
        }
    }
}

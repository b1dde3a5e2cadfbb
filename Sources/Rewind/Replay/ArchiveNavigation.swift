/// A navigation operation as a session archive (format version 2) writes it: `"none"`, `"pop"`
/// and `"popToRoot"` as strings, the others as an object of one member naming the screen,
/// `{"push":"detail"}`, `{"popTo":"all"}`, `{"replace":"list"}`, `{"setRoot":"all"}`. Read here;
/// written by the record line's writer (``SessionArchive/Record/writeJSON(into:)``).
struct ArchiveNavigation: Decodable, Equatable {
    /// The operation.
    var operation: NavigationOperation

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let name = try? single.decode(String.self) {
            switch name {
            case "none": operation = .none
            case "pop": operation = .pop
            case "popToRoot": operation = .popToRoot
            default:
                throw DecodingError.dataCorruptedError(
                    in: single, debugDescription: "'\(name)' is not a navigation operation (none, pop, popToRoot)")
            }
            return
        }
        let container = try decoder.container(keyedBy: Key.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription:
                        "a navigation operation is a string or an object of one member, {\"push\": SCREEN}"))
        }
        let screen = try container.decode(String.self, forKey: key)
        switch key.stringValue {
        case "push": operation = .push(screen)
        case "popTo": operation = .popTo(screen)
        case "replace": operation = .replace(screen)
        case "setRoot": operation = .setRoot(screen)
        default:
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container,
                debugDescription: "'\(key.stringValue)' is not a navigation operation (push, popTo, replace, setRoot)")
        }
    }
}

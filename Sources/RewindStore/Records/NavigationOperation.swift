/// What a transition does to the app's navigation stack.
public enum NavigationOperation: Sendable, Hashable, Codable, CustomStringConvertible {
    /// No navigation change.
    case none
    /// Pushes `screen` onto the stack.
    case push(String)
    /// Pops the top screen.
    case pop
    /// Pops back to the root screen.
    case popToRoot
    /// Pops back to `screen`.
    case popTo(String)
    /// Replaces the top screen with `screen`.
    case replace(String)
    /// Replaces the whole stack with `screen`.
    case setRoot(String)

    /// The screen the operation names, if any.
    public var screen: String? {
        switch self {
        case .none, .pop, .popToRoot: return nil
        case .push(let screen), .popTo(let screen), .replace(let screen), .setRoot(let screen): return screen
        }
    }

    /// E.g. `push(login)` or `pop`.
    public var description: String {
        switch self {
        case .none: return "none"
        case .push(let screen): return "push(\(screen))"
        case .pop: return "pop"
        case .popToRoot: return "popToRoot"
        case .popTo(let screen): return "popTo(\(screen))"
        case .replace(let screen): return "replace(\(screen))"
        case .setRoot(let screen): return "setRoot(\(screen))"
        }
    }
}

/// What a transition did to the session's navigation stack, resolved from the machine's
/// `NavigationDeclaration`s: the screen is a concrete id.
public enum NavigationOperation: Hashable, Sendable, Codable {
    /// Nothing changes.
    case none
    /// Pushes `screen`.
    case push(String)
    /// Pops the top screen.
    case pop
    /// Pops to the root screen.
    case popToRoot
    /// Pops to the topmost occurrence of `screen`.
    case popTo(String)
    /// Replaces the top screen with `screen`.
    case replace(String)
    /// Makes `screen` the only screen.
    case setRoot(String)

    /// The screen the operation names, if any.
    public var screen: String? {
        switch self {
        case .none, .pop, .popToRoot: return nil
        case .push(let screen), .popTo(let screen), .replace(let screen), .setRoot(let screen): return screen
        }
    }
}

extension NavigationOperation: CustomStringConvertible {
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

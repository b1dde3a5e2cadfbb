/// What a transition did to the session's navigation stack, resolved from the machine's
/// ``NavigationDeclaration``s: the screen is a concrete id.
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
}

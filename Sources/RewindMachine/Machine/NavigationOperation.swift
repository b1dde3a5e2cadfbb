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

/// A navigation stack rebuilt from ``NavigationOperation``s, as a log reader would do without the
/// app's code.
public struct NavigationStack: Hashable, Sendable, Codable {
    /// The screens, root first.
    public private(set) var screens: [String]

    /// Creates a stack (empty by default).
    public init(screens: [String] = []) {
        self.screens = screens
    }

    /// Applies one operation. Popping never removes the root; `popTo` a screen not on the stack
    /// changes nothing; pushing or replacing on an empty stack makes the screen the root.
    public mutating func apply(_ operation: NavigationOperation) {
        switch operation {
        case .none:
            break
        case .push(let screen):
            screens.append(screen)
        case .pop:
            if screens.count > 1 { screens.removeLast() }
        case .popToRoot:
            if screens.count > 1 { screens.removeSubrange(1...) }
        case .popTo(let screen):
            if let index = screens.lastIndex(of: screen) { screens.removeSubrange((index + 1)...) }
        case .replace(let screen):
            if screens.isEmpty { screens.append(screen) } else { screens[screens.count - 1] = screen }
        case .setRoot(let screen):
            screens = [screen]
        }
    }

    /// Applies operations in order.
    public mutating func apply(_ operations: some Sequence<NavigationOperation>) {
        for operation in operations { apply(operation) }
    }
}

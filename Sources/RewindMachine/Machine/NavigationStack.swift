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

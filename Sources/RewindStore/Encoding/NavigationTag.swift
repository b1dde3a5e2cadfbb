/// The byte that stands for each ``NavigationOperation`` case in a record (format 1): the one
/// table that the record encoder (``RecordCodec``), the record check and the decoder
/// (``RecordView``) read. A tag whose operation names a screen is followed by the screen as a
/// string.
package enum NavigationTag: UInt8, CaseIterable, Sendable {
    /// ``NavigationOperation/none``.
    case none = 0
    /// ``NavigationOperation/push(_:)``, then the screen.
    case push = 1
    /// ``NavigationOperation/pop``.
    case pop = 2
    /// ``NavigationOperation/popToRoot``.
    case popToRoot = 3
    /// ``NavigationOperation/popTo(_:)``, then the screen.
    case popTo = 4
    /// ``NavigationOperation/replace(_:)``, then the screen.
    case replace = 5
    /// ``NavigationOperation/setRoot(_:)``, then the screen.
    case setRoot = 6

    /// The tag of `operation`.
    @inline(__always)
    package init(_ operation: NavigationOperation) {
        switch operation {
        case .none: self = .none
        case .push: self = .push
        case .pop: self = .pop
        case .popToRoot: self = .popToRoot
        case .popTo: self = .popTo
        case .replace: self = .replace
        case .setRoot: self = .setRoot
        }
    }

    /// Whether a screen (a string) follows the tag.
    @inline(__always)
    package var hasScreen: Bool {
        switch self {
        case .none, .pop, .popToRoot: return false
        case .push, .popTo, .replace, .setRoot: return true
        }
    }

    /// The operation this tag stands for; `screen` reads the screen that follows the tag, and is
    /// called only when ``hasScreen``.
    @inline(__always)
    package func operation(screen: () -> String) -> NavigationOperation {
        switch self {
        case .none: return .none
        case .push: return .push(screen())
        case .pop: return .pop
        case .popToRoot: return .popToRoot
        case .popTo: return .popTo(screen())
        case .replace: return .replace(screen())
        case .setRoot: return .setRoot(screen())
        }
    }
}

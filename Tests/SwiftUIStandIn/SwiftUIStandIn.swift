// Stand-ins, on every platform, for the names SwiftUI, SwiftData and Observation put into an app
// file next to `import Rewind`. `NameCollisionTests` imports both modules and uses these names
// unqualified: it compiles only while `import Rewind` exports none of them.

/// SwiftUI's `@Environment` property wrapper.
@propertyWrapper
public struct Environment<Value> {
    /// The wrapped value.
    public var wrappedValue: Value
    /// Wraps `wrappedValue`.
    public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }
}

/// SwiftUI's `@State` property wrapper.
@propertyWrapper
public struct State<Value> {
    /// The wrapped value.
    public var wrappedValue: Value
    /// Wraps `wrappedValue`.
    public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }
}

/// SwiftUI's `Binding`.
public struct Binding<Value> {
    /// Reads the value.
    public let get: () -> Value
    /// Binds to `get`.
    public init(get: @escaping () -> Value) { self.get = get }
}

/// SwiftUI's `Transition` protocol (iOS 17): what a view does when it appears or disappears.
public protocol Transition {
    /// The transition's name, for the test.
    var name: String { get }
}

/// SwiftUI's `Transaction`.
public struct Transaction {
    /// Creates a transaction.
    public init() {}
}

/// SwiftUI's `Namespace`.
public struct Namespace {
    /// Creates a namespace.
    public init() {}
}

/// SwiftUI's `Animation`.
public struct Animation {
    /// Creates an animation.
    public init() {}
}

/// A database type such as SwiftData's or GRDB's `Database`.
public struct Database {
    /// The database's name.
    public let name: String
    /// Names a database.
    public init(name: String) { self.name = name }
}

/// A cursor type such as GRDB's `Cursor`.
public protocol Cursor {
    /// The next element, or `nil` at the end.
    mutating func next() -> Int?
}

/// SwiftUI's `NavigationStack(path:root:)`: a stack of views over a bound path of route values.
public struct NavigationStack<Route, Root> {
    /// The bound path, the routes above the root.
    public let path: Binding<[Route]>
    /// The root view.
    public let root: Root
    /// Shows `root` under the routes of `path`.
    public init(path: Binding<[Route]>, @NavigationRootBuilder root: () -> Root) {
        self.path = path
        self.root = root()
    }
}

/// Stands in for SwiftUI's `@ViewBuilder` on ``NavigationStack``'s root.
@resultBuilder
public enum NavigationRootBuilder {
    /// The root is its one component.
    public static func buildBlock<Root>(_ root: Root) -> Root { root }
}

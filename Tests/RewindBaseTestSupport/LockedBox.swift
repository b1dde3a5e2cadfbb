import Synchronization

/// A value shared between tasks and hooks, guarded by a mutex: what tests collect into from
/// `@Sendable` hooks and concurrent senders.
public final class LockedBox<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    /// Creates a box holding `value`.
    public init(_ value: Value) {
        self.value = Mutex(value)
    }

    /// A copy of the value now.
    public var current: Value { value.withLock { $0 } }

    /// Changes the value under the lock and returns what `body` returns.
    @discardableResult
    public func withValue<R: Sendable, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        try value.withLock { (value: inout sending Value) throws(E) -> R in try body(&value) }
    }
}

extension LockedBox where Value: RangeReplaceableCollection, Value.Element: Sendable {
    /// Appends `element` under the lock.
    public func append(_ element: Value.Element) {
        withValue { $0.append(element) }
    }
}

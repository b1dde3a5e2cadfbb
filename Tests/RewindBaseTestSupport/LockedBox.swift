import Foundation

/// A value shared between tasks and hooks, guarded by a lock: what tests collect into from
/// `@Sendable` hooks and concurrent senders.
public final class LockedBox<Value>: @unchecked Sendable {
    /// Guards `value`.
    private let lock = NSLock()
    private var value: Value

    /// Creates a box holding `value`.
    public init(_ value: Value) {
        self.value = value
    }

    /// A copy of the value now.
    public var current: Value { lock.withLock { value } }

    /// Changes the value under the lock and returns what `body` returns.
    @discardableResult
    public func withValue<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try lock.withLock { try body(&value) }
    }
}

extension LockedBox where Value: RangeReplaceableCollection {
    /// Appends `element` under the lock.
    public func append(_ element: Value.Element) {
        withValue { $0.append(element) }
    }
}

import RewindStore

/// Built-in projection: the navigation stack of every session, rebuilt from the navigation
/// operations of its records (push, pop, popToRoot, popTo, replace, setRoot) as the user saw it
/// after each step. Query it through ``Engine/navigationStacks``.
public struct NavigationProjection: Projection {
    /// One session's navigation.
    public struct SessionNavigation: Codable, Sendable, Hashable {
        /// The session's machine.
        public var machine: String
        /// The stack after the session's last record.
        public var stack: NavigationStack

        /// Creates a session's navigation.
        public init(machine: String, stack: NavigationStack) {
            self.machine = machine
            self.stack = stack
        }
    }

    /// The projection's name (default `rewind.navigation`).
    public let name: String

    /// Version 1: compact binary state.
    public var version: UInt32 { 1 }

    /// Creates the projection (keep the default name to use ``Engine/navigationStacks``).
    public init(name: String = "rewind.navigation") {
        self.name = name
    }

    /// The session's id.
    public func key(for record: TransitionRecord) -> String? {
        record.session.rawValue
    }

    /// Applies the record's navigation operations, in order, to the session's stack.
    public func apply(_ record: TransitionRecord, to state: inout SessionNavigation?) {
        // Taken out of `state` so that the stack is uniquely referenced and changes in place.
        var navigation = state.take() ?? SessionNavigation(machine: record.machine, stack: NavigationStack())
        if navigation.machine != record.machine { navigation.machine = record.machine }
        navigation.stack.apply(record.navigation)
        state = navigation
    }

    /// Compact binary: machine, then the screens root first.
    public func encode(_ state: SessionNavigation, into buffer: inout [UInt8]) {
        var writer = StateWriter()
        swap(&writer.bytes, &buffer)
        writer.string(state.machine)
        writer.strings(state.stack.screens)
        swap(&writer.bytes, &buffer)
    }

    /// Reads what ``encode(_:into:)`` wrote.
    public func decode(_ bytes: UnsafeRawBufferPointer) throws -> SessionNavigation {
        var reader = StateReader(bytes)
        let navigation = SessionNavigation(machine: try reader.string(), stack: NavigationStack(screens: try reader.strings()))
        try reader.expectEnd()
        return navigation
    }
}

import RewindMachine
import RewindStore

/// Built-in projection: the navigation stack of every session, rebuilt from the navigation
/// operations of its records (push, pop, popToRoot, popTo, replace, setRoot) as the user saw it
/// after each step, each entry with the data its screen was entered with (taken from the
/// record's state data: ``ScreenStack/apply(_:coder:)``). Query it through
/// ``Engine/navigationStacks``.
public struct NavigationProjection: Projection {
    /// One session's navigation.
    public struct SessionNavigation: Codable, Sendable, Hashable {
        /// The session's machine.
        public var machine: String
        /// The stack after the session's last record.
        public var stack: ScreenStack

        /// Creates a session's navigation.
        public init(machine: String, stack: ScreenStack) {
            self.machine = machine
            self.stack = stack
        }
    }

    /// The projection's name (default `rewind.navigation`).
    public let name: String

    /// The coder of the records' state data (the store's: ``EngineConfiguration``'s
    /// `store.coder`).
    public let coder: any PayloadCoder

    /// Version 2: compact binary state with each entry's data (version 1 held screens only; a
    /// store built with it is rebuilt from the log).
    public var version: UInt32 { 2 }

    /// Creates the projection (keep the default name to use ``Engine/navigationStacks``; pass
    /// the store's coder when it is not the default JSON one).
    public init(name: String = "rewind.navigation", coder: any PayloadCoder = JSONPayloadCoder()) {
        self.name = name
        self.coder = coder
    }

    /// The session's id.
    public func key(for record: TransitionRecord) -> String? {
        record.session.rawValue
    }

    /// `true`: a state per session, deleted with its session.
    public var keysAreSessionIDs: Bool { true }

    /// Applies the record's navigation operations, in order, to the session's stack.
    ///
    /// - Throws: The coder's error when the record's state data cannot be decoded (the projection
    ///   stops at that record: ``ProjectionError/applyFailed(projection:sequence:session:cause:)``).
    public func apply(_ record: TransitionRecord, to state: inout SessionNavigation?) throws {
        // Taken out of `state` so that the stack is uniquely referenced and changes in place.
        var navigation = state.take() ?? SessionNavigation(machine: record.machine, stack: ScreenStack())
        if navigation.machine != record.machine { navigation.machine = record.machine }
        defer { state = navigation }
        try navigation.stack.apply(record, coder: coder)
    }

    /// Compact binary: machine, the number of entries, then per entry, root first, its screen
    /// and its data as JSON (empty for `null`).
    public func encode(_ state: SessionNavigation, into buffer: inout [UInt8]) throws {
        var writer = StateWriter()
        swap(&writer.bytes, &buffer)
        defer { swap(&writer.bytes, &buffer) }
        writer.string(state.machine)
        writer.varint(UInt64(state.stack.entries.count))
        for entry in state.stack.entries {
            writer.string(entry.screen)
            writer.data(entry.data.isNull ? [] : try entry.data.jsonBytes())
        }
    }

    /// Reads what ``encode(_:into:)`` wrote.
    public func decode(_ bytes: UnsafeRawBufferPointer) throws -> SessionNavigation {
        var reader = StateReader(bytes)
        let machine = try reader.string()
        let count = try reader.count()
        var entries: [NavigationEntry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let screen = try reader.string()
            let data = try reader.data()
            entries.append(NavigationEntry(screen: screen, data: data.isEmpty ? .null : try JSONValue(jsonBytes: data)))
        }
        try reader.expectEnd()
        return SessionNavigation(machine: machine, stack: ScreenStack(entries: entries))
    }
}

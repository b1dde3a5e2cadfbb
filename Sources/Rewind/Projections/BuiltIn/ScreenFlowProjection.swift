import RewindStore

/// Built-in projection: where every session is now, per session id — its machine, active
/// configuration, the data its last step's entered states carry, the last event and its time —
/// and every state it has ever been in (for funnels). Query it through ``Engine/screenFlows``.
public struct ScreenFlowProjection: Projection {
    /// One session's flow so far.
    public struct Flow: Codable, Sendable, Hashable {
        /// The session's machine.
        public var machine: String
        /// The active configuration after the last record (the record's `target`).
        public var configuration: [String]
        /// The data carried by the states the last step entered (a JSON object by state id,
        /// encoded with the store's coder; empty when they carry none). See
        /// ``ScreenFlows/stateData(of:)``.
        public var stateData: [UInt8]
        /// The last record's event.
        public var lastEvent: String
        /// The last record's time.
        public var updated: Timestamp
        /// The session's version (its number of records).
        public var version: UInt64
        /// Every state the session has been in, sorted.
        public var reached: [String]

        /// Creates a flow.
        public init(
            machine: String, configuration: [String], stateData: [UInt8], lastEvent: String,
            updated: Timestamp, version: UInt64, reached: [String]
        ) {
            self.machine = machine
            self.configuration = configuration
            self.stateData = stateData
            self.lastEvent = lastEvent
            self.updated = updated
            self.version = version
            self.reached = reached
        }

        /// Whether `state` is in the active configuration.
        public func isIn(_ state: String) -> Bool { configuration.contains(state) }
    }

    /// The projection's name (default `rewind.screen-flows`).
    public let name: String

    /// Version 1: compact binary state.
    public var version: UInt32 { 1 }

    /// Creates the projection (keep the default name to use ``Engine/screenFlows``).
    public init(name: String = "rewind.screen-flows") {
        self.name = name
    }

    /// The session's id.
    public func key(for record: TransitionRecord) -> String? {
        record.session.rawValue
    }

    /// `true`: a state per session, deleted with its session.
    public var keysAreSessionIDs: Bool { true }

    /// Moves the session to the record's target, adding the target's states to ``Flow/reached``.
    public func apply(_ record: TransitionRecord, to state: inout Flow?) {
        // The same step as the catch-up fold's over record views (ScreenFlowFoldStep.swift).
        var none: Void = ()
        Flow.fold(record, into: &state, strings: &none)
    }

    /// The first index of `sorted` whose element is not less than `id`.
    static func insertionPoint(of id: String, in sorted: [String]) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Compact binary: machine, configuration, state data, last event, time, version, reached.
    public func encode(_ state: Flow, into buffer: inout [UInt8]) {
        var writer = StateWriter()
        swap(&writer.bytes, &buffer)
        writer.string(state.machine)
        writer.strings(state.configuration)
        writer.data(state.stateData)
        writer.string(state.lastEvent)
        writer.int64(state.updated.microsecondsSince1970)
        writer.varint(state.version)
        writer.strings(state.reached)
        swap(&writer.bytes, &buffer)
    }

    /// Reads what ``encode(_:into:)`` wrote.
    public func decode(_ bytes: UnsafeRawBufferPointer) throws -> Flow {
        var reader = StateReader(bytes)
        let flow = Flow(
            machine: try reader.string(), configuration: try reader.strings(), stateData: try reader.data(),
            lastEvent: try reader.string(), updated: Timestamp(microsecondsSince1970: try reader.int64()),
            version: try reader.varint(), reached: try reader.strings())
        try reader.expectEnd()
        return flow
    }
}

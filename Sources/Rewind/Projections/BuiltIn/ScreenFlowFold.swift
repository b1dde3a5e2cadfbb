import RewindStore

extension ScreenFlowProjection: RecordViewFolding {
    func makeViewFold(after checkpoint: UInt64) -> any ProjectionFolding {
        ScreenFlowFold(projection: self, checkpoint: checkpoint)
    }
}

/// ``ScreenFlowProjection``'s fold over borrowed record views: each session's ``ScreenFlowProjection/Flow``
/// is changed in place from the record's bytes, fields copied only when they differ, and state
/// ids, events and machine names interned (equal ones share one `String`). A rebuild then
/// allocates nothing per record in the steady state. The states are exactly those of
/// ``ScreenFlowProjection/apply(_:to:)`` (tests compare the stored bytes).
final class ScreenFlowFold: ProjectionFolding {
    /// Everything mutable, in one struct: the class's stored property is accessed once per record
    /// (one dynamic exclusivity check), not once per field.
    private var fold: Fold

    init(projection: ScreenFlowProjection, checkpoint: UInt64) {
        fold = Fold(projection: projection, checkpoint: checkpoint, states: FoldStates(name: projection.name))
    }

    var checkpoint: UInt64 { fold.checkpoint }

    func apply(_ record: TransitionRecord, in transaction: StoreReadTransaction) throws {
        try fold.apply(record, in: transaction)
    }

    func apply(_ view: RecordView, in transaction: StoreReadTransaction) throws {
        try fold.apply(view, in: transaction)
    }

    func write(to transaction: StoreWriteTransaction) throws {
        try fold.states.write(to: transaction, encode: fold.projection.encode)
    }

    private struct Fold {
        let projection: ScreenFlowProjection
        var checkpoint: UInt64
        var states: FoldStates<ScreenFlowProjection.Flow>
        /// Machine names, events and state ids seen so far.
        var strings = UTF8KeyTable()

        /// The most distinct strings interned before the table starts over (bounds its memory).
        static let maximumInternedStrings = 100_000

        mutating func apply(_ record: TransitionRecord, in transaction: StoreReadTransaction) throws {
            var key = record.session.rawValue
            let index = try key.withUTF8 { utf8 in
                try self.index(ofSession: UnsafeRawBufferPointer(utf8), sequence: record.sequence, in: transaction) {
                    record.session
                }
            }
            projection.apply(record, to: &states.states[index])
            states.markDirty(index)
            checkpoint = record.sequence
        }

        mutating func apply(_ view: RecordView, in transaction: StoreReadTransaction) throws {
            let index = try self.index(ofSession: view.sessionBytes, sequence: view.sequence, in: transaction) {
                view.session
            }
            if strings.count > Self.maximumInternedStrings { strings.removeAll() }
            if states.states[index] != nil {
                // Changed in place (optional chaining), so its arrays stay uniquely referenced.
                states.states[index]?.update(from: view, strings: &strings)
            } else {
                var configuration: [String] = []
                configuration.reserveCapacity(view.target.count)
                for id in view.target { configuration.append(strings.string(id)) }
                states.states[index] = ScreenFlowProjection.Flow(
                    machine: strings.string(view.machineBytes), configuration: configuration,
                    stateData: Array(view.stateDataBytes), lastEvent: strings.string(view.eventBytes),
                    updated: view.timestamp, version: view.version, reached: configuration.sorted())
            }
            states.markDirty(index)
            checkpoint = view.sequence
        }

        /// The index of the session's flow, read from the store the first time.
        private mutating func index(
            ofSession bytes: UnsafeRawBufferPointer, sequence: UInt64, in transaction: StoreReadTransaction,
            session: () -> SessionID
        ) throws -> Int {
            if let index = states.index(of: bytes) { return index }
            let key = String(decoding: bytes, as: UTF8.self)
            do {
                return try states.load(key, bytes: bytes, from: transaction, decode: projection.decode)
            } catch let error as ProjectionError {
                throw ProjectionError.applyFailed(
                    projection: states.name, sequence: sequence, session: session(), cause: ErrorCause(error))
            }
        }
    }
}

extension ScreenFlowProjection.Flow {
    /// What ``ScreenFlowProjection/apply(_:to:)`` does to an existing flow, copying only what
    /// changed and taking strings from `strings`.
    fileprivate mutating func update(from view: RecordView, strings: inout UTF8KeyTable) {
        if !view.machineBytes.equalsUTF8(of: machine) {
            // `apply` keeps the old name when the new one is equal as a String (canonically).
            let newMachine = strings.string(view.machineBytes)
            if machine != newMachine { machine = newMachine }
        }
        let newStateData = view.stateDataBytes
        if !stateData.withUnsafeBytes({ $0.equals(newStateData) }) {
            stateData.removeAll(keepingCapacity: true)
            stateData.append(contentsOf: newStateData)
        }
        if !view.eventBytes.equalsUTF8(of: lastEvent) { lastEvent = strings.string(view.eventBytes) }
        updated = view.timestamp
        version = view.version
        // The same configuration (byte for byte) was reached by the previous record already.
        guard !view.target.equalsUTF8(of: configuration) else { return }
        configuration.removeAll(keepingCapacity: true)
        for id in view.target { configuration.append(strings.string(id)) }
        for id in configuration {
            let position = ScreenFlowProjection.insertionPoint(of: id, in: reached)
            if position == reached.count || reached[position] != id {
                reached.insert(id, at: position)
            }
        }
    }
}

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
            // Taken out so that its arrays are uniquely referenced and change in place.
            if var flow = states.states[index].take() {
                update(&flow, from: view)
                states.states[index] = flow
            } else {
                var configuration: [String] = []
                configuration.reserveCapacity(view.target.count)
                for id in view.target { configuration.append(intern(id)) }
                states.states[index] = ScreenFlowProjection.Flow(
                    machine: intern(view.machineBytes), configuration: configuration,
                    stateData: Array(view.stateDataBytes), lastEvent: intern(view.eventBytes),
                    updated: view.timestamp, version: view.version, reached: configuration.sorted())
            }
            states.markDirty(index)
            checkpoint = view.sequence
        }

        /// What ``ScreenFlowProjection/apply(_:to:)`` does to an existing flow, copying only
        /// what changed.
        private mutating func update(_ flow: inout ScreenFlowProjection.Flow, from view: RecordView) {
            if !view.machineBytes.equalsUTF8(of: flow.machine) {
                // `apply` keeps the old name when the new one is equal as a String (canonically).
                let machine = intern(view.machineBytes)
                if flow.machine != machine { flow.machine = machine }
            }
            let stateData = view.stateDataBytes
            if !flow.stateData.withUnsafeBytes({ $0.equals(stateData) }) {
                flow.stateData.removeAll(keepingCapacity: true)
                flow.stateData.append(contentsOf: stateData)
            }
            if !view.eventBytes.equalsUTF8(of: flow.lastEvent) { flow.lastEvent = intern(view.eventBytes) }
            flow.updated = view.timestamp
            flow.version = view.version
            // The same configuration (byte for byte) was reached by the previous record already.
            guard !view.target.equalsUTF8(of: flow.configuration) else { return }
            flow.configuration.removeAll(keepingCapacity: true)
            for id in view.target { flow.configuration.append(intern(id)) }
            for id in flow.configuration {
                let position = ScreenFlowProjection.insertionPoint(of: id, in: flow.reached)
                if position == flow.reached.count || flow.reached[position] != id {
                    flow.reached.insert(id, at: position)
                }
            }
        }

        @inline(__always)
        private mutating func intern(_ bytes: UnsafeRawBufferPointer) -> String {
            let index = strings.intern(bytes)
            return strings.keys[index]
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
                    projection: states.name, sequence: sequence, session: session(), reason: error.description)
            }
        }
    }
}

import RewindStore

/// A registered projection with its state type erased, so the engine can hold projections of
/// different types in one list.
protocol ProjectionRunning: Sendable {
    /// The projection's name.
    var name: String { get }
    /// The projection's version.
    var version: UInt32 { get }
    /// When it runs.
    var mode: ProjectionMode { get }
    /// A fold over consecutive records starting after global sequence `checkpoint`.
    func makeFold(after checkpoint: UInt64) -> any ProjectionFolding
}

/// One run of a projection over consecutive records: each touched key's state is read from the
/// store once, folded in memory, and written once by ``write(to:)``.
///
/// A fold whose ``apply(_:in:)`` threw is spoiled (a state may be half-updated): discard it and
/// redo the records before the failing one with a fresh fold.
protocol ProjectionFolding: AnyObject {
    /// The global sequence of the last record applied.
    var checkpoint: UInt64 { get }
    /// Folds `record` into its key's state, reading that state from `transaction` the first time.
    /// - Throws: ``ProjectionError/applyFailed(projection:sequence:session:reason:)`` naming
    ///   `record` (also when its key is invalid or its stored state unreadable), LMDB's errors.
    func apply(_ record: TransitionRecord, in transaction: StoreReadTransaction) throws
    /// Writes (or deletes) every state changed since the last write.
    /// - Throws: ``ProjectionError/stateEncodingFailed(projection:key:reason:)`` before writing
    ///   anything, LMDB's errors.
    func write(to transaction: StoreWriteTransaction) throws
}

/// The key of a projection's state in the `projections` database: name, NUL, state key.
enum ProjectionKeys {
    static let maximumNameBytes = 100
    static let maximumKeyBytes = 400

    static func prefix(_ name: String) -> [UInt8] {
        var bytes = Array(name.utf8)
        bytes.append(0)
        return bytes
    }

    static func validate(name: String) throws {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= maximumNameBytes, !bytes.contains(0) else {
            throw ProjectionError.invalidName(name)
        }
    }
}

struct ProjectionRunner<P: Projection>: ProjectionRunning {
    let projection: P
    let mode: ProjectionMode

    var name: String { projection.name }
    var version: UInt32 { projection.version }

    func makeFold(after checkpoint: UInt64) -> any ProjectionFolding {
        ProjectionFold(projection: projection, checkpoint: checkpoint)
    }
}

final class ProjectionFold<P: Projection>: ProjectionFolding {
    private struct Entry {
        var state: P.State?
        var isDirty: Bool
    }

    private let projection: P
    private let name: String
    private(set) var checkpoint: UInt64
    /// Every state read or folded so far, by key.
    private var entries: [String: Entry] = [:]
    /// The keys whose state changed since the last write, in first-change order.
    private var dirtyKeys: [String] = []
    /// The reused key buffer: the name's prefix, then a state key.
    private var keyBuffer: [UInt8]
    private let prefixCount: Int

    init(projection: P, checkpoint: UInt64) {
        self.projection = projection
        self.name = projection.name
        self.checkpoint = checkpoint
        self.keyBuffer = ProjectionKeys.prefix(projection.name)
        self.prefixCount = keyBuffer.count
    }

    func apply(_ record: TransitionRecord, in transaction: StoreReadTransaction) throws {
        guard let key = projection.key(for: record) else {
            checkpoint = record.sequence
            return
        }
        var index = entries.index(forKey: key)
        if index == nil {
            let state: P.State?
            do {
                state = try load(key, from: transaction)
            } catch let error as ProjectionError {
                // A key too long or a stored state unreadable: this record is where it stops.
                throw ProjectionError.applyFailed(
                    projection: name, sequence: record.sequence, session: record.session, reason: error.description)
            }
            entries[key] = Entry(state: state, isDirty: false)
            index = entries.index(forKey: key)
        }
        guard let index else { return }
        do {
            try projection.apply(record, to: &entries.values[index].state)
        } catch {
            throw ProjectionError.applyFailed(
                projection: name, sequence: record.sequence, session: record.session,
                reason: String(describing: error))
        }
        if !entries.values[index].isDirty {
            entries.values[index].isDirty = true
            dirtyKeys.append(key)
        }
        checkpoint = record.sequence
    }

    func write(to transaction: StoreWriteTransaction) throws {
        // Encode everything first, so that an encoding failure writes nothing.
        var encoded: [(key: [UInt8], value: [UInt8]?)] = []
        encoded.reserveCapacity(dirtyKeys.count)
        for key in dirtyKeys {
            guard let entry = entries[key] else { continue }
            var value: [UInt8]?
            if let state = entry.state {
                var bytes: [UInt8] = []
                do {
                    try projection.encode(state, into: &bytes)
                } catch {
                    throw ProjectionError.stateEncodingFailed(projection: name, key: key, reason: String(describing: error))
                }
                value = bytes
            }
            encoded.append((try storeKey(key), value))
        }
        for (key, value) in encoded {
            if let value {
                try transaction.put(value, forKey: key, in: .projections)
            } else {
                try transaction.delete(key, in: .projections)
            }
        }
        if entries.count > Self.maximumCachedStates {
            // Everything is written: forget the states rather than grow without bound (they are
            // read again from the store when needed).
            entries.removeAll()
        } else {
            for key in dirtyKeys { entries[key]?.isDirty = false }
        }
        dirtyKeys.removeAll(keepingCapacity: true)
    }

    /// The most states a fold keeps in memory between writes (a rebuild over many sessions).
    static var maximumCachedStates: Int { 200_000 }

    private func storeKey(_ key: String) throws -> [UInt8] {
        guard key.utf8.count <= ProjectionKeys.maximumKeyBytes else {
            throw ProjectionError.invalidKey(projection: name, key: key)
        }
        keyBuffer.removeSubrange(prefixCount...)
        keyBuffer.append(contentsOf: key.utf8)
        return keyBuffer
    }

    private func load(_ key: String, from transaction: StoreReadTransaction) throws -> P.State? {
        let bytes = try storeKey(key)
        return try transaction.withValue(forKey: bytes, in: .projections) { value in
            do {
                return try projection.decode(value)
            } catch {
                throw ProjectionError.corruptedState(projection: name, key: key, reason: String(describing: error))
            }
        }
    }
}

extension Projection {
    /// This projection behind a type-erased runner.
    func runner(mode: ProjectionMode) -> any ProjectionRunning {
        ProjectionRunner(projection: self, mode: mode)
    }
}

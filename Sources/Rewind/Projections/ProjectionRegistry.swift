import Foundation
import RewindStore
import Synchronization

/// The projections registered with an ``Engine``: runs them inline (inside the group commit's
/// write transaction) and catches them up from their checkpoints.
///
/// Everything a projection's progress depends on (its states, its checkpoint, its failure) is read
/// from and written to the store inside the write transaction doing the work, never kept in
/// memory between transactions: an inline update and a catch-up batch (both LMDB writes, so
/// serialised) always see each other's results, and a write closure re-run after map growth starts
/// from what is committed.
final class ProjectionRegistry: Sendable {
    /// The registered projections' runners, in registration order.
    private let runners = Mutex<[any ProjectionRunning]>([])

    /// Records per catch-up write transaction.
    let batchSize: Int

    /// The most records (appended by other processes) an inline run folds before the commit's
    /// own; a projection further behind waits for a catch-up.
    static let maximumInlineGap: UInt64 = 10_000

    init(batchSize: Int = 50_000) {
        self.batchSize = batchSize
    }

    var all: [any ProjectionRunning] { runners.withLock { $0 } }

    /// Whether any projection runs inline (the commit queue then hands it each commit's records).
    var hasInlineProjections: Bool { runners.withLock { $0.contains { $0.mode == .inline } } }

    func runner(named name: String) -> (any ProjectionRunning)? {
        runners.withLock { $0.first { $0.name == name } }
    }

    func add(_ runner: any ProjectionRunning) throws {
        try ProjectionKeys.validate(name: runner.name)
        try runners.withLock { runners in
            guard !runners.contains(where: { $0.name == runner.name }) else {
                throw ProjectionError.alreadyRegistered(runner.name)
            }
            runners.append(runner)
        }
    }

    // MARK: Status

    static func status(of name: String, in transaction: StoreReadTransaction) throws -> ProjectionStatus? {
        try transaction.withValue(forKey: Array(name.utf8), in: .checkpoints) { bytes in
            try CheckpointCodec.decode(bytes, name: name)
        }
    }

    static func write(_ status: ProjectionStatus, in transaction: StoreWriteTransaction) throws {
        try transaction.put(CheckpointCodec.encode(status), forKey: Array(status.name.utf8), in: .checkpoints)
    }

    // MARK: Inline

    /// Applies `records` (just appended in `transaction`, in global order) to every inline
    /// projection that is caught up to them, first folding the few records other processes may
    /// have appended since its checkpoint (at most ``maximumInlineGap``). A projection that fails
    /// is marked failed and skipped from then on; only LMDB's errors are thrown (they fail the
    /// commit).
    func applyInline(_ records: [TransitionRecord], in transaction: StoreWriteTransaction) throws {
        guard let first = records.first?.sequence else { return }
        for runner in all where runner.mode == .inline {
            guard let status = try? Self.status(of: runner.name, in: transaction),
                status.version == runner.version, status.failure == nil, status.checkpoint < first,
                first - 1 - status.checkpoint <= Self.maximumInlineGap
            else { continue }  // not caught up (or unreadable): the next catch-up handles it
            var records = records
            if status.checkpoint < first - 1 {
                // Fewer records than sequences when some were erased: only those before `first`.
                records =
                    try transaction.records(from: status.checkpoint + 1, limit: Int(first - 1 - status.checkpoint))
                    .filter { $0.sequence < first } + records
            }
            let fold = runner.makeFold(after: status.checkpoint)
            do {
                for record in records { try fold.apply(record, reading: transaction) }
                try fold.write(to: transaction)
                try Self.write(
                    ProjectionStatus(name: runner.name, version: runner.version, checkpoint: fold.checkpoint),
                    in: transaction)
            } catch let error as ProjectionError {
                try markFailed(
                    runner, error: error, from: status.checkpoint, records: records, in: transaction)
            }
        }
    }

    /// Writes `runner`'s states up to just before the record `error` names (redoing the records
    /// before it with a fresh fold) and a checkpoint there carrying the failure.
    private func markFailed(
        _ runner: any ProjectionRunning, error: ProjectionError, from checkpoint: UInt64,
        records: some Collection<TransitionRecord>, in transaction: StoreWriteTransaction
    ) throws {
        let failure = Self.failure(of: error, records: records)
        var stop = checkpoint
        if let fold = try runner.fold(before: failure.sequence, of: records, after: checkpoint, reading: transaction) {
            do {
                try fold.write(to: transaction)
                stop = fold.checkpoint
            } catch is ProjectionError {
                // A state that cannot be encoded: keep the states as they were.
            }
        }
        try Self.write(
            ProjectionStatus(name: runner.name, version: runner.version, checkpoint: stop, failure: failure),
            in: transaction)
    }

    /// Where and why a projection stopped: on the record `error` names, else before `records`.
    static func failure(of error: ProjectionError, records: some Collection<TransitionRecord>) -> ProjectionFailure {
        if case .applyFailed(_, let sequence, let session, let cause) = error {
            return ProjectionFailure(sequence: sequence, session: session, reason: cause.description)
        }
        // Not tied to one record (a state that cannot be read or written): stop before the batch.
        let first = records.first
        return ProjectionFailure(
            sequence: first?.sequence ?? 0, session: first?.session ?? Self.placeholderSession,
            reason: error.description)
    }

    private static let placeholderSession: SessionID = "-"

    // MARK: Catch-up

    private enum BatchOutcome {
        case caughtUp(ProjectionStatus)
        case advanced(applied: UInt64)
        case failed(applied: UInt64, ProjectionError)
    }

    /// Runs `runner` from its checkpoint to the head in write transactions of ``batchSize``
    /// records, rebuilding it from scratch first when its stored version differs (or it has no
    /// checkpoint) and retrying from its checkpoint when it had failed.
    ///
    /// - Throws: ``ProjectionError/applyFailed(projection:sequence:session:cause:)`` (after
    ///   committing the states before the failing record and a checkpoint carrying the failure),
    ///   other ``ProjectionError``s, the store's errors.
    @discardableResult
    func catchUp(
        _ runner: any ProjectionRunning, store: TransitionStore, batchSize: Int? = nil,
        progress: (ProjectionProgress) -> Void
    ) throws -> ProjectionStatus {
        let clock = ContinuousClock()
        let started = clock.now
        var fold: (any ProjectionFolding)?
        var total: UInt64?
        var done: UInt64 = 0
        let batchSize = UInt64(max(1, batchSize ?? self.batchSize))
        func report() {
            progress(
                ProjectionProgress(
                    projection: runner.name, recordsDone: done, recordsTotal: max(total ?? 0, done),
                    elapsedSeconds: (clock.now - started).seconds))
        }
        while true {
            let outcome = try store.write { transaction -> BatchOutcome in
                var status: ProjectionStatus
                if let stored = try Self.status(of: runner.name, in: transaction), stored.version == runner.version {
                    status = stored
                    status.failure = nil
                } else {
                    try Self.removeStates(of: runner.name, in: transaction)
                    status = ProjectionStatus(name: runner.name, version: runner.version, checkpoint: 0)
                }
                let head = try transaction.headSequence()
                if total == nil { total = head > status.checkpoint ? head - status.checkpoint : 0 }
                guard status.checkpoint < head else {
                    try Self.write(status, in: transaction)
                    return .caughtUp(status)
                }
                // Reuse the states folded by the previous batch only if they are what is stored.
                let current: any ProjectionFolding
                if let fold, fold.checkpoint == status.checkpoint {
                    current = fold
                } else {
                    current = runner.makeFold(after: status.checkpoint)
                }
                fold = current
                let last = min(head, status.checkpoint + batchSize)
                var failure: ProjectionError?
                try transaction.forEachRecordView(from: status.checkpoint + 1) { record in
                    guard record.sequence <= last else { return .stop }  // past an erased range
                    do {
                        try current.apply(record, reading: transaction)
                    } catch let error as ProjectionError {
                        failure = error
                        return .stop
                    }
                    return record.sequence < last ? .next : .stop
                }
                if let failure {
                    fold = nil
                    let failedAt: UInt64
                    if case .applyFailed(_, let sequence, _, _) = failure {
                        failedAt = sequence
                    } else {
                        failedAt = status.checkpoint + 1
                    }
                    var records = try transaction.records(
                        from: status.checkpoint + 1, limit: Int(failedAt - status.checkpoint - 1)
                    ).filter { $0.sequence < failedAt }
                    if let failing = try transaction.record(at: failedAt) { records.append(failing) }
                    try markFailed(runner, error: failure, from: status.checkpoint, records: records, in: transaction)
                    let stopped = try Self.status(of: runner.name, in: transaction)?.checkpoint ?? status.checkpoint
                    return .failed(applied: stopped - status.checkpoint, failure)
                }
                // Sequences up to `last` without a record were erased: the fold accounts for them.
                current.advance(through: last)
                try current.write(to: transaction)
                let applied = current.checkpoint - status.checkpoint
                status.checkpoint = current.checkpoint
                try Self.write(status, in: transaction)
                return .advanced(applied: applied)
            }
            switch outcome {
            case .caughtUp(let status):
                report()
                return status
            case .advanced(let applied):
                done += applied
                report()
            case .failed(let applied, let error):
                done += applied
                report()
                throw error
            }
        }
    }

    /// Forgets `runner`'s states and checkpoint, then rebuilds it from the first record.
    @discardableResult
    func rebuild(
        _ runner: any ProjectionRunning, store: TransitionStore, progress: (ProjectionProgress) -> Void
    ) throws -> ProjectionStatus {
        try store.write { transaction in
            try Self.removeStates(of: runner.name, in: transaction)
            try transaction.delete(Array(runner.name.utf8), in: .checkpoints)
        }
        return try catchUp(runner, store: store, progress: progress)
    }

    /// Deletes every state of the projection `name`.
    static func removeStates(of name: String, in transaction: StoreWriteTransaction) throws {
        let prefix = ProjectionKeys.prefix(name)
        var keys: [[UInt8]] = []
        try transaction.forEach(in: .projections, from: prefix) { key, _ in
            guard key.starts(with: prefix) else { return .stop }
            keys.append(Array(key))
            return .next
        }
        for key in keys { try transaction.delete(key, in: .projections) }
    }
}

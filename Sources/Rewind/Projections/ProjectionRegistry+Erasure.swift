import RewindStore

/// Erasure's part of the projections: the states of every registered projection lose what the
/// erased records contributed, in the erasure's own write transaction, by the one fold driver.
extension ProjectionRegistry {
    /// Removes `erasure`'s records from every registered projection that had applied them, so its
    /// states equal a rebuild from the remaining log; returns the names of the projections that
    /// were re-folded (those whose keys are not only the erased sessions' ids).
    ///
    /// A projection keyed by session (``Projection/keysAreSessionIDs``) loses the erased sessions'
    /// states. Any other has the states its erased records touched deleted and folded again from
    /// the remaining log up to its checkpoint (a walk of the log, restricted to those keys). A
    /// re-fold that fails leaves the projection to be rebuilt: its states and checkpoint go, and
    /// the next catch-up folds it from the first record. A failure recorded at an erased record is
    /// forgotten (it named the erased session).
    ///
    /// - Throws: the store's errors.
    func removeContributions(of erasure: StoreErasure, in transaction: StoreWriteTransaction) throws -> [String] {
        guard !erasure.records.isEmpty else { return [] }
        let erasedSessions = Set(erasure.sessions.map(\.rawValue))
        let erasedSequences = Set(erasure.records.map(\.sequence))
        var refolded: [String] = []
        for runner in all {
            guard var status = try Self.status(of: runner.name, in: transaction), status.version == runner.version
            else {
                continue  // rebuilt from the remaining log when it next runs
            }
            if let failure = status.failure, erasedSequences.contains(failure.sequence) {
                status.failure = nil
                try Self.write(status, in: transaction)
            }
            let checkpoint = status.checkpoint
            let keys = runner.makeFold(after: 0).keys(of: erasure.records.lazy.filter { $0.sequence <= checkpoint })
            guard !keys.isEmpty else { continue }
            let prefix = ProjectionKeys.prefix(runner.name)
            for key in keys { try transaction.delete(prefix + Array(key.utf8), in: .projections) }
            if runner.keysAreSessionIDs, keys.allSatisfy(erasedSessions.contains) { continue }
            let fold = runner.makeFold(after: 0, onlyKeys: Set(keys))
            do {
                try transaction.forEachRecordView { view in
                    guard view.sequence <= checkpoint else { return .stop }
                    try fold.apply(view, reading: transaction)
                    return .next
                }
                try fold.write(to: transaction)
            } catch is ProjectionError {
                try Self.removeStates(of: runner.name, in: transaction)
                try transaction.delete(Array(runner.name.utf8), in: .checkpoints)
            }
            refolded.append(runner.name)
        }
        return refolded
    }
}

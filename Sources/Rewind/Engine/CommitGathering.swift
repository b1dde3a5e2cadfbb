/// How a group commit gathers the appends it writes.
///
/// After a commit, the senders it acknowledged usually send again soon (a session stepping through
/// a flow, an import, a benchmark loop). Starting the next commit at once takes whoever is
/// already waiting; with many senders they then settle into two halves that take turns, each
/// commit carrying half of them. Waiting a little for the acknowledged senders keeps them in one
/// batch: a round then costs one synced commit plus the senders' stepping back, instead of two
/// synced commits, and a synced commit of 60 records costs far less than two of 30 (its flushes
/// dominate). It pays while the senders step back faster than a commit syncs (measured in
/// `Benchmarks/README.md`: 8 senders 0.6× the time per transition, 64 senders 0.75–0.95×, 256 no
/// change).
public enum CommitGathering: Sendable, Hashable {
    /// ``acknowledgedSenders`` when commits are synced (``Durability/durable``,
    /// ``Durability/lastCommitMayRollBack``), ``immediate`` otherwise (a commit that is not
    /// synced is cheap, and waiting would only idle it). The default.
    case automatic
    /// Each commit takes what is waiting as soon as the previous one is done.
    case immediate
    /// Before the next commit, wait until as many appends are waiting as the previous commit
    /// acknowledged plus those that were already waiting when it ended, but no longer than that
    /// commit took: a burst of senders stays in one batch, and a request that arrives while no
    /// acknowledged sender comes back waits at most one more commit's time. A commit of one
    /// append with nobody waiting is not followed by a wait: a session sending alone commits on
    /// its own thread instead.
    case acknowledgedSenders
}

extension CommitGathering {
    /// Whether the commit thread waits, for an engine with `durability`.
    func gathers(for durability: Durability) -> Bool {
        switch self {
        case .automatic: durability.flushesEachCommit
        case .immediate: false
        case .acknowledgedSenders: true
        }
    }
}

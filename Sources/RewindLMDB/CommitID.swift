/// One committed state of an environment, as this process sees it: two transactions of the
/// process whose commits are equal read the same data.
///
/// It is LMDB's transaction id (`mdb_txn_id`) of the commit, with the opening of the data file it
/// belongs to: every commit of any process advances the id, and a compaction, which starts the
/// ids again on its new file, changes the opening. A layer above can therefore keep something it
/// derived from the data (a cache) with the commit it derived it from, and use it again only in
/// a transaction of the same commit, without reading what it derived it from.
public struct CommitID: Hashable, Sendable, CustomStringConvertible {
    /// The opening of the environment's data file, unique in the process.
    let opening: UInt64
    /// LMDB's id of the commit (`mdb_txn_id`); after a compaction the ids start again.
    public let transaction: UInt64

    /// `opening/transaction`, for diagnostics.
    public var description: String { "\(opening)/\(transaction)" }

    /// Whether `self` is a later commit of the same opening than `other`.
    public func follows(_ other: CommitID) -> Bool {
        opening == other.opening && transaction > other.transaction
    }
}

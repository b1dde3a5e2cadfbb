import Foundation
import RewindLMDB
import Synchronization

/// The sessions whose `sessions` entries the log has moved past (store format 3).
///
/// An append writes its records to the log (and an index block when it completes one), not its
/// session's entry: every entry accounts for the log through the `sessions-through` sequence in
/// `meta` (the *mark*), and the records after it — the tail — hold what changed since. A session's
/// head is its entry, advanced by its records in the tail. Once the tail is longer than
/// ``StoreConfiguration/maximumSessionTail`` records, the append's transaction writes the heads of
/// the sessions in it as their entries and moves the mark to the log's end.
///
/// So a durable commit of one session changes one B-tree (the log) instead of two, and a group
/// commit of *n* sessions writes their entries once per many commits. A tail is derived from the
/// log alone, so a crash loses nothing: whoever opens the store next reads the tail again.
struct SessionTail: Sendable {
    /// Every `sessions` entry accounts for the log through this sequence.
    var mark: UInt64
    /// The last sequence of the log this tail accounts for.
    var end: UInt64
    /// The head of each session with records after ``mark``, as of ``end`` (``SessionID`` compares
    /// and hashes its UTF-8 bytes, as the `sessions` database keys it).
    var heads: [SessionID: SessionHead]

    /// The records after the mark.
    var length: UInt64 { end - mark }

    /// The tail of a log whose entries are current through `mark`, with nothing read yet.
    init(mark: UInt64) {
        self.mark = mark
        self.end = mark
        self.heads = [:]
    }

    /// Reads the log after ``end`` (to the end of `transaction`'s snapshot) into the heads.
    ///
    /// - Throws: ``StoreError/corruptedEntry(database:key:reason:)`` when a record's version does not
    ///   follow its session's head; the errors of reading a record or an entry.
    mutating func read(from transaction: StoreReadTransaction) throws {
        try transaction.forEachRecordView(from: end + 1) { view in
            let key = view.session
            var head: SessionHead
            if let known = heads[key] {
                head = known
            } else if let stored = try transaction.storedEntry(for: key) {
                head = stored
            } else {
                head = .empty(view.session, created: view.timestamp, origin: view.origin)
            }
            guard view.version == head.info.headVersion + 1 else {
                throw StoreError.corruptedEntry(
                    database: StoreLayout.sessions, key: key.rawValue.debugDescription,
                    reason: "the log's record at sequence \(view.sequence) is version \(view.version), "
                        + "but the session's head is version \(head.info.headVersion)")
            }
            if head.advance(sequence: view.sequence, machine: view.string(view.machineField), timestamp: view.timestamp)
            {
                head.startNextBlock()  // its block went to the session index with it
            }
            heads[key] = head
            end = view.sequence
            return .next
        }
    }
}

/// The newest ``SessionTail`` this process has read or written, shared by its transactions so
/// that each reads only the records committed since.
///
/// A tail is kept with the commit it is exact for (``CommitID``). A transaction of that same
/// commit (a read of it, or a write building on it: no commit of any process came between)
/// takes the tail as it is, without reading the mark or the log's end. Otherwise a tail is reused
/// only by a transaction that sees the same mark and at least the same log end, which reads the
/// records after it. A write transaction takes the tail out (no copy of its heads while it
/// appends) and gives back its own once committed. A tail lost with an aborted transaction is
/// read again from the log.
final class SessionTailCache: Sendable {
    /// The cached tail and the commit it is exact for.
    private let latest = Mutex<(tail: SessionTail, commit: CommitID)?>(nil)

    /// The cached tail when it is exactly the one of `commit`; `take` removes it from the cache
    /// (for a write transaction).
    func tail(at commit: CommitID, take: Bool) -> SessionTail? {
        latest.withLock { latest in
            guard let cached = latest, cached.commit == commit else { return nil }
            if take { latest = nil }
            return cached.tail
        }
    }

    /// The cached tail when it is a prefix of what a snapshot with `mark` and log end `end`
    /// sees; `take` removes it from the cache (for a write transaction).
    func tail(mark: UInt64, end: UInt64, take: Bool) -> SessionTail? {
        latest.withLock { latest in
            guard let tail = latest?.tail, tail.mark == mark, tail.end <= end else { return nil }
            if take { latest = nil }
            return tail
        }
    }

    /// Keeps `tail`, exact for `commit`, unless the cache holds a newer one.
    func offer(_ tail: SessionTail, at commit: CommitID) {
        latest.withLock { latest in
            if let cached = latest {
                let newer =
                    cached.tail.mark > tail.mark
                    || (cached.tail.mark == tail.mark
                        && (cached.tail.end > tail.end
                            || (cached.tail.end == tail.end && cached.commit.follows(commit))))
                if newer { return }
            }
            latest = (tail, commit)
        }
    }
}

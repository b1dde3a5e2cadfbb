import Foundation
import RewindBaseTestSupport
import RewindLMDB
import Testing

@_spi(Internals) @testable import RewindStore

/// Session entries that lag the log (store format 3): a session's head is its `sessions` entry
/// advanced by its records after the `sessions-through` mark. Every read must equal a store that
/// writes every entry at once, whoever wrote, aborted or crashed in between.
@Suite("Session tail")
struct SessionTailTests {
    /// The raw `sessions` entry and the mark, read past the store's tail.
    func stored(_ store: TransitionStore, _ id: SessionID) throws -> (entry: SessionInfo?, mark: UInt64) {
        try store.read { txn in (try txn.storedEntry(for: id)?.info, try txn.sessionsThrough()) }
    }

    @Test func entriesLagTheLogUntilTheTailIsLongerThanTheLimitThenAreWrittenOut() throws {
        try withStore(configuration: StoreConfiguration(maximumSessionTail: 4)) { store, _ in
            let id = try session("s")
            try store.append([onboarding[0]], to: id, expectedVersion: .noStream)
            try store.append([onboarding[1]], to: id, expectedVersion: .exact(1))
            // Behind: no entry yet, the mark at the start; the head comes from the log.
            #expect(try stored(store, id).entry == nil)
            #expect(try stored(store, id).mark == 0)
            #expect(try store.sessionInfo(for: id)?.headVersion == 2)
            #expect(try store.sessions().map(\.headVersion) == [2])
            try store.append([onboarding[2], onboarding[1], onboarding[2]], to: id, expectedVersion: .exact(2))
            // Five records after the mark > 4: written out with that append.
            let (entry, mark) = try stored(store, id)
            #expect(mark == 5)
            #expect(entry == (try store.sessionInfo(for: id)))
            #expect(entry?.headVersion == 5)
            #expect(entry?.headSequence == 5)
        }
    }

    @Test func zeroWritesEveryEntryWithItsAppend() throws {
        try withStore(configuration: StoreConfiguration(maximumSessionTail: 0)) { store, _ in
            let id = try session("s")
            try store.append([onboarding[0]], to: id, expectedVersion: .noStream)
            #expect(try stored(store, id).entry?.headVersion == 1)
            #expect(try stored(store, id).mark == 1)
        }
    }

    /// Random batches over a few sessions (new ones appearing, blocks completing) on a store whose
    /// entries lag by `limit` and on one that writes them at once: after every batch, every read
    /// of a session — its info, the session list, its records forward and backward from random
    /// versions, `sessionInfo` from a fresh store on the same directory — is the same.
    @Test(arguments: [1, 7, 40, 256])
    func readsEqualAStoreWhoseEntriesAreCurrent(limit: Int) throws {
        let eager = try TestDirectory("eager")
        defer { eager.remove() }
        let current = try TransitionStore(
            directory: eager.path, configuration: StoreConfiguration(maximumSessionTail: 0))
        defer { current.close() }
        try withStore(configuration: StoreConfiguration(maximumSessionTail: limit)) { lagging, directory in
            var random = SeededRandom(seed: UInt64(limit) &* 31 &+ 5)
            let ids = try ["a", "ab", "b", "c", "d", "é"].map(session)
            var heads: [SessionID: UInt64] = [:]
            for round in 0..<60 {
                var batch: [SessionAppend] = []
                for id in ids.shuffled(using: &random).prefix(Int.random(in: 1...4, using: &random)) {
                    let count = random.chance(0.1) ? StoreLayout.indexBlockSize : Int.random(in: 1...12, using: &random)
                    let head = heads[id] ?? 0
                    let micros = 1_700_000_000_000_000 + Int64(round)
                    batch.append(
                        SessionAppend(
                            session: id, expectedVersion: head == 0 ? .noStream : .exact(head),
                            transitions: (0..<count).map { step("e\($0)", from: ["s"], to: ["s\($0)"], at: micros) }))
                    heads[id] = head + UInt64(count)
                }
                #expect(try lagging.append(batch) == current.append(batch))
                #expect(try lagging.sessions() == current.sessions())
                let id = ids[Int.random(in: 0..<ids.count, using: &random)]
                #expect(try lagging.sessionInfo(for: id) == current.sessionInfo(for: id))
                let version = UInt64.random(in: 1...max(1, heads[id] ?? 1), using: &random)
                for direction in [IterationDirection.forward, .backward] {
                    let range = direction == .forward ? version...UInt64.max : 1...version
                    #expect(
                        try lagging.records(of: id, versions: range, direction: direction).map(\.sequence)
                            == current.records(of: id, versions: range, direction: direction).map(\.sequence))
                }
                if round % 10 == 9 {
                    // Another store on the directory (no shared tail) reads the same from the log.
                    let fresh = try TransitionStore(directory: directory.path)
                    #expect(try fresh.sessions() == current.sessions())
                    fresh.close()
                }
            }
            // Every write-out left the mark at the log's end of its commit, never beyond.
            let mark = try lagging.read { try $0.sessionsThrough() }
            #expect(mark <= (try lagging.headSequence()))
            #expect((try lagging.headSequence()) - mark <= UInt64(limit))
        }
    }

    @Test func aSessionListStoppedEarlyStopsAmongNewSessionsToo() throws {
        try withStore { store, _ in
            for name in ["b", "d"] { try store.append([onboarding[0]], to: try session(name)) }
            try store.write { txn in
                try txn.loadTail()
                try txn.writeTailIfLonger(than: 0)
            }
            #expect(try stored(store, try session("b")).entry != nil)
            for name in ["a", "c", "e"] { try store.append([onboarding[0]], to: try session(name)) }
            #expect(try store.sessions().map(\.session.rawValue) == ["a", "b", "c", "d", "e"])
            var seen: [String] = []
            try store.read { txn in
                try txn.forEachSession { info in
                    seen.append(info.session.rawValue)
                    return seen.count == 3 ? .stop : .next
                }
            }
            #expect(seen == ["a", "b", "c"])
        }
    }

    /// A stop on a session that has an entry ends the list: the new sessions after it (their
    /// first records in the tail) are not visited.
    @Test func aSessionListStoppedOnAStoredSessionVisitsNoNewSessionAfterIt() throws {
        try withStore { store, _ in
            for name in ["b", "d"] { try store.append([onboarding[0]], to: try session(name)) }
            try store.write { txn in
                try txn.loadTail()
                try txn.writeTailIfLonger(than: 0)
            }
            #expect(try stored(store, try session("b")).entry != nil)
            for name in ["a", "c", "e"] { try store.append([onboarding[0]], to: try session(name)) }
            var seen: [String] = []
            try store.read { txn in
                try txn.forEachSession { info in
                    seen.append(info.session.rawValue)
                    return info.session.rawValue == "b" ? .stop : .next
                }
            }
            #expect(seen == ["a", "b"])
        }
    }

    /// Ids that differ in their bytes are different sessions (the store keys them by UTF-8 bytes),
    /// even when Swift's `String` equality calls them equal (canonically equivalent Unicode): the
    /// tail must not give one's head to the other.
    @Test func canonicallyEquivalentIdsWithDifferentBytesAreDifferentSessionsInTheTail() throws {
        try withStore { store, directory in
            let composed = try session("caf\u{E9}")  // é as one scalar
            let decomposed = try session("cafe\u{301}")  // e and a combining acute accent
            #expect(Array(composed.rawValue.utf8) != Array(decomposed.rawValue.utf8))
            try store.append([onboarding[0], onboarding[1]], to: composed, expectedVersion: .noStream)
            let result = try store.append([onboarding[0]], to: decomposed, expectedVersion: .noStream)
            #expect(result.firstVersion == 1 && result.lastVersion == 1 && result.firstSequence == 3)
            #expect(try store.sessionInfo(for: composed)?.headVersion == 2)
            #expect(try store.sessionInfo(for: decomposed)?.headVersion == 1)
            #expect(try store.records(of: decomposed).map(\.sequence) == [3])
            #expect(try store.records(of: composed).map(\.sequence) == [1, 2])
            #expect(
                try store.sessions().map { Array($0.session.rawValue.utf8) }
                    == [Array(decomposed.rawValue.utf8), Array(composed.rawValue.utf8)])
            // Written out, each session's entry is its own.
            try store.write { txn in
                try txn.loadTail()
                try txn.writeTailIfLonger(than: 0)
            }
            let fresh = try TransitionStore(directory: directory.path)
            defer { fresh.close() }
            #expect(try fresh.read { try $0.storedEntry(for: composed)?.info.headVersion } == 2)
            #expect(try fresh.read { try $0.storedEntry(for: decomposed)?.info.headVersion } == 1)
        }
    }

    @Test func anotherWriterAndAnAbortedTransactionAreSeenInTheTail() throws {
        try withStore { store, directory in
            let id = try session("s")
            try store.append([onboarding[0]], to: id, expectedVersion: .noStream)
            // An aborted append moves nothing.
            struct Abort: Error {}
            #expect(throws: Abort.self) {
                try store.write { txn in
                    try txn.append([onboarding[1]], to: id, expectedVersion: .exact(1))
                    throw Abort()
                }
            }
            #expect(try store.sessionInfo(for: id)?.headVersion == 1)
            // A second store on the directory (its own tail) moves the session on; the first sees
            // it: a stale expected version is a conflict, the right one appends.
            let other = try TransitionStore(directory: directory.path)
            defer { other.close() }
            try other.append([onboarding[1], onboarding[2]], to: id, expectedVersion: .exact(1))
            #expect(throws: StoreError.versionConflict(session: id, expected: .exact(1), actual: 3)) {
                try store.append([onboarding[1]], to: id, expectedVersion: .exact(1))
            }
            let result = try store.append([onboarding[1]], to: id, expectedVersion: .exact(3))
            #expect(result.lastVersion == 4 && result.lastSequence == 4)
            #expect(try other.sessionInfo(for: id)?.headVersion == 4)
        }
    }

    /// A tail is taken without reading the log only in a transaction of the commit it was made
    /// for. A compaction starts LMDB's commit ids again, so a store whose tail dates from before
    /// one (another store on the directory compacted it and wrote since) meets its old id again.
    @Test func aTailFromBeforeACompactionIsNotTakenForTheSameIdAfterIt() throws {
        try withStore { store, directory in
            let id = try session("s")
            try store.append([onboarding[0]], to: id, expectedVersion: .noStream)
            for version in UInt64(1)..<12 {
                try store.append([onboarding[1]], to: id, expectedVersion: .exact(version))
            }
            #expect(try store.sessionInfo(for: id)?.headVersion == 12)
            let cachedAt = try store.read { try $0.transaction.baseCommit() }
            let other = try TransitionStore(directory: directory.path)
            defer { other.close() }
            _ = try other.compact()
            var head: UInt64 = 12
            while try other.read({ try $0.transaction.baseCommit() }).transaction < cachedAt.transaction {
                try other.append([onboarding[1]], to: id, expectedVersion: .exact(head))
                head += 1
                try #require(head < 100, "the compacted store's commit ids reach the old one")
            }
            // The premise: the same LMDB id, another commit.
            let now = try other.read { try $0.transaction.baseCommit() }
            #expect(now.transaction == cachedAt.transaction && now != cachedAt)
            #expect(head > 12)
            #expect(try store.sessionInfo(for: id)?.headVersion == head)
            #expect(try store.append([onboarding[1]], to: id, expectedVersion: .exact(head)).lastVersion == head + 1)
        }
    }

    @Test func aReopenedStoreReadsItsHeadsFromTheLogAfterTheMark() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let id = try session("s")
        do {
            let store = try TransitionStore(directory: directory.path)
            try store.append(onboarding, to: id, expectedVersion: .noStream)
            store.close()  // nothing written out: the log alone has the session
        }
        let store = try TransitionStore(directory: directory.path)
        defer { store.close() }
        #expect(try store.read { try $0.storedEntry(for: id) } == nil)
        let info = try #require(try store.sessionInfo(for: id))
        #expect(info.headVersion == 3 && info.headSequence == 3 && info.recordCount == 3)
        #expect(info.machine == "onboarding")
        #expect(try store.records(of: id).map(\.version) == [1, 2, 3])
        try store.append([onboarding[1]], to: id, expectedVersion: .exact(3))
    }

    @Test func aRecordThatDoesNotFollowItsSessionsHeadIsReportedWithItsSequence() throws {
        try withStore { store, directory in
            let id = try session("s")
            try store.append([onboarding[0]], to: id, expectedVersion: .noStream)
            // Behind the store's back: sequence 2 claims version 5 of the session.
            var bytes: [UInt8] = []
            RecordCodec.encode(sequence: 2, session: id, version: 5, transition: onboarding[1], into: &bytes)
            let environment = try Environment(
                directory: directory.path, configuration: EnvironmentConfiguration(maxDatabases: 16))
            let log = try environment.database(named: StoreLayout.log, create: false)
            try environment.write { try $0.put(bytes, forKey: StoreKey.uint64(2), in: log) }
            environment.close()
            let fresh = try TransitionStore(directory: directory.path)
            defer { fresh.close() }
            #expect(
                throws: StoreError.corruptedEntry(
                    database: StoreLayout.sessions, key: "\"s\"",
                    reason: "the log's record at sequence 2 is version 5, but the session's head is version 1")
            ) {
                try fresh.sessionInfo(for: id)
            }
        }
    }

    @Test(arguments: [4, UInt64.max])
    func aMarkBeyondTheLogsEndIsACorruptedEntryAndNothingIsAppended(mark: UInt64) throws {
        try withStore { store, directory in
            let id = try session("s")
            try store.append(onboarding, to: id, expectedVersion: .noStream)
            // Behind the store's back: the mark says the entries account for records never written.
            let environment = try Environment(
                directory: directory.path, configuration: EnvironmentConfiguration(maxDatabases: 16))
            let meta = try environment.database(named: StoreLayout.meta, create: false)
            try environment.write {
                try $0.put(StoreKey.uint64(mark), forKey: StoreLayout.sessionsThroughKey, in: meta)
            }
            environment.close()
            let fresh = try TransitionStore(directory: directory.path)
            defer { fresh.close() }
            let expected = StoreError.corruptedEntry(
                database: StoreLayout.meta, key: "'sessions-through'",
                reason: "it is sequence \(mark), beyond the log's end at sequence 3")
            #expect(throws: expected) { try fresh.sessionInfo(for: id) }
            #expect(throws: expected) { try fresh.append([onboarding[1]], to: try session("t")) }
            #expect(try fresh.headSequence() == 3)
        }
    }

    @Test func aFormat2StoreIsMigratedWithItsMarkAtTheLogsEnd() throws {
        try withStore(configuration: StoreConfiguration(maximumSessionTail: 0)) { store, directory in
            let id = try session("s")
            try store.append(onboarding, to: id, expectedVersion: .noStream)
            store.close()
            // Make it a format 2 store: current entries, no mark.
            let environment = try Environment(
                directory: directory.path, configuration: EnvironmentConfiguration(maxDatabases: 16))
            let meta = try environment.database(named: StoreLayout.meta, create: false)
            try environment.write { txn in
                try txn.put([0, 0, 0, 2], forKey: StoreLayout.formatVersionKey, in: meta)
                _ = try txn.delete(StoreLayout.sessionsThroughKey, in: meta)
            }
            environment.close()
            let migrated = try TransitionStore(directory: directory.path)
            defer { migrated.close() }
            #expect(migrated.formatVersion == StoreLayout.formatVersion)
            #expect(try migrated.read { try $0.sessionsThrough() } == 3)
            #expect(try migrated.sessionInfo(for: id)?.headVersion == 3)
            try migrated.append([onboarding[1]], to: id, expectedVersion: .exact(3))
        }
    }

    /// Within one transaction: a version conflict after the head was moved out of the tail puts it
    /// back; the next append goes on from it.
    @Test func aConflictInsideATransactionKeepsTheHeadItMovedOutOfTheTail() throws {
        try withStore(configuration: StoreConfiguration(maximumSessionTail: 3)) { store, directory in
            let id = try session("s")
            try store.append([onboarding[0]], to: id, expectedVersion: .noStream)
            try store.write { txn in
                _ = try txn.append([onboarding[1]], to: id, expectedVersion: .exact(1))
                #expect(throws: StoreError.versionConflict(session: id, expected: .exact(1), actual: 2)) {
                    try txn.append([onboarding[1]], to: id, expectedVersion: .exact(1))
                }
                #expect(try txn.sessionInfo(for: id)?.headVersion == 2)
                _ = try txn.append([onboarding[2], onboarding[1], onboarding[2]], to: id, expectedVersion: .exact(2))
                #expect(throws: StoreError.versionConflict(session: id, expected: .noStream, actual: 5)) {
                    try txn.append([onboarding[1]], to: id, expectedVersion: .noStream)
                }
            }
            #expect(try store.sessionInfo(for: id)?.headVersion == 5)
            let fresh = try TransitionStore(directory: directory.path)
            defer { fresh.close() }
            #expect(try fresh.sessionInfo(for: id)?.headVersion == 5)
            #expect(try fresh.read { try $0.sessionsThrough() } == 5)
            #expect(try fresh.records(of: id).map(\.version) == [1, 2, 3, 4, 5])
        }
    }

    /// A fork's origin comes from its first record while the session is in the tail, and stays
    /// in its entry once written out.
    @Test func aForksOriginIsReadFromItsFirstRecordAndWrittenOut() throws {
        for limit in [0, 2, 100] {
            try withStore(configuration: StoreConfiguration(maximumSessionTail: limit)) { store, directory in
                let a = try session("a")
                let b = try session("b")
                try store.append(onboarding, to: a, expectedVersion: .noStream)
                var forked = onboarding
                forked[0].origin = RecordOrigin(session: a, version: 2)
                try store.append(forked, to: b, expectedVersion: .noStream)
                try store.append([onboarding[1]], to: b, expectedVersion: .exact(3))
                let expected = RecordOrigin(session: a, version: 2)
                #expect(try store.sessionInfo(for: b)?.origin == expected)
                #expect(try store.sessionInfo(for: a)?.origin == nil)
                let fresh = try TransitionStore(directory: directory.path)
                defer { fresh.close() }
                #expect(try fresh.sessionInfo(for: b)?.origin == expected)
                #expect(try fresh.sessions().map(\.origin) == [nil, expected])
            }
        }
    }

    /// A map that fills in the middle of group commits (the tail taken from the cache, appended
    /// to, then dropped with the aborted attempt) leaves every head right.
    @Test func aMapFullInGroupCommitsLeavesEveryHeadRight() throws {
        let tiny = StoreConfiguration(
            environment: EnvironmentConfiguration(mapSize: 64 << 10, options: .noSync),
            maximumSessionTail: 7)
        try withStore(configuration: tiny) { store, directory in
            var random = SeededRandom(seed: 9)
            let payload = [UInt8](repeating: 0x42, count: 3000)
            var heads: [SessionID: UInt64] = [:]
            for _ in 0..<60 {
                var batch: [SessionAppend] = []
                for index in (0..<6).shuffled(using: &random).prefix(3) {
                    let id = try session("s\(index)")
                    let n = Int.random(in: 1...5, using: &random)
                    batch.append(
                        SessionAppend(
                            session: id, expectedVersion: .exact(heads[id] ?? 0),
                            transitions: (0..<n).map { _ in step("t", from: ["a"], to: ["a"], payload: payload) }))
                    heads[id, default: 0] += UInt64(n)
                }
                try store.append(batch)
                for (id, head) in heads {
                    #expect(try store.sessionInfo(for: id)?.headVersion == head)
                }
            }
            let fresh = try TransitionStore(directory: directory.path)
            defer { fresh.close() }
            for (id, head) in heads {
                #expect(try fresh.sessionInfo(for: id)?.headVersion == head)
                #expect(try fresh.records(of: id).map(\.version) == Array(1...head))
            }
        }
    }

    /// Readers on threads while a writer appends (and writes the tail out): in every snapshot each
    /// session's head matches its records and the heads add up to the log.
    @Test func readersOnThreadsSeeHeadsThatMatchTheirSnapshot() throws {
        try withStore(
            configuration: StoreConfiguration(
                environment: EnvironmentConfiguration(options: .noSync), maximumSessionTail: 5)
        ) { store, _ in
            let ids = try (0..<5).map { try session("s\($0)") }
            let done = LockedBox(false)
            let failures = LockedBox(0)
            let group = DispatchGroup()
            for reader in 0..<3 {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    var random = SeededRandom(seed: UInt64(reader))
                    while !done.current {
                        do {
                            try store.read { txn in
                                let total = try txn.headSequence()
                                var sum: UInt64 = 0
                                for info in try txn.sessions() {
                                    sum += info.recordCount
                                    let records = try txn.records(of: info.session)
                                    if records.count != Int(info.headVersion)
                                        || records.last?.sequence != info.headSequence
                                    {
                                        failures.withValue { $0 += 1 }
                                    }
                                }
                                if sum != total { failures.withValue { $0 += 1 } }
                                _ = random.next()
                            }
                        } catch { failures.withValue { $0 += 1 } }
                    }
                }
            }
            var random = SeededRandom(seed: 77)
            for _ in 0..<400 {
                let id = ids[Int.random(in: 0..<ids.count, using: &random)]
                try store.append([onboarding[1]], to: id)
            }
            done.withValue { $0 = true }
            group.wait()
            #expect(failures.current == 0)
        }
    }
}

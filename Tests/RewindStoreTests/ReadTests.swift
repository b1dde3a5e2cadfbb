import Foundation
import RewindStore
import Testing

@Suite("Reads")
struct ReadTests {
    /// Interleaves 30 versions each of sessions "a", "ab" and "b" (ids that share prefixes).
    func interleaved(_ store: TransitionStore) throws -> [SessionID] {
        let ids = try ["a", "ab", "b"].map(session)
        for round in 0..<30 {
            try store.append(
                ids.map {
                    SessionAppend(
                        session: $0, transitions: [step("e\(round)", from: ["s\(round)"], to: ["s\(round + 1)"])])
                })
        }
        return ids
    }

    @Test func aSessionsHistoryHoldsOnlyItsRecordsForwardAndBackward() throws {
        try withStore { store, _ throws in
            let ids = try interleaved(store)
            let forward = try store.records(of: ids[0])
            #expect(forward.map(\.version) == Array(1...30))
            #expect(forward.allSatisfy { $0.session == ids[0] })
            #expect(forward.map(\.sequence) == stride(from: 1, through: 88, by: 3).map { UInt64($0) })
            let backward = try store.records(of: ids[1], direction: .backward)
            #expect(backward.map(\.version) == Array((1...30).reversed()))
            #expect(backward.allSatisfy { $0.session == ids[1] })
        }
    }

    @Test func aVersionRangeReadsOnlyThoseVersions() throws {
        try withStore { store, _ throws in
            let ids = try interleaved(store)
            #expect(try store.records(of: ids[1], versions: 5...8).map(\.version) == [5, 6, 7, 8])
            #expect(
                try store.records(of: ids[1], versions: 5...8, direction: .backward).map(\.version) == [8, 7, 6, 5])
            #expect(try store.records(of: ids[2], versions: 29...40).map(\.version) == [29, 30])
            #expect(try store.records(of: ids[2], versions: 31...40).isEmpty)
            #expect(try store.records(of: try session("nobody")).isEmpty)
            let lastTwo = try store.read { try $0.records(of: ids[0], direction: .backward, limit: 2) }
            #expect(lastTwo.map(\.version) == [30, 29])
            var visited = 0
            try store.read { tx throws in
                try tx.forEachRecord(of: ids[0], from: 10) { _ in
                    visited += 1
                    return visited < 3 ? .next : .stop
                }
            }
            #expect(visited == 3)
        }
    }

    @Test func theWholeLogReadsFromASequenceOn() throws {
        try withStore { store, _ throws in
            _ = try interleaved(store)
            #expect(try store.records(from: 85).map(\.sequence) == [85, 86, 87, 88, 89, 90])
            #expect(try store.records(from: 10, limit: 2).map(\.sequence) == [10, 11])
            #expect(try store.records(from: 91).isEmpty)
            #expect(try store.record(at: 44)?.sequence == 44)
            #expect(try store.record(at: 91) == nil)
            #expect(try store.record(at: 0) == nil)
        }
    }

    @Test func sessionsListHeadsAndMachines() throws {
        try withStore { store, _ throws in
            let ids = try interleaved(store)
            let sessions = try store.sessions()
            #expect(sessions.map(\.session) == ids)
            #expect(sessions.map(\.headVersion) == [30, 30, 30])
            #expect(sessions.map(\.headSequence) == [88, 89, 90])
            #expect(sessions.allSatisfy { $0.machine == "onboarding" })
        }
    }

    @Test func aReaderSnapshotStaysConsistentWhileAWriterAppends() throws {
        try withStore { store, _ throws in
            let s = try session("s")
            try store.append(onboarding, to: s)
            let (headBefore, headAfter, records, info) = try store.read { tx throws in
                let before = try tx.headSequence()
                let finished = DispatchSemaphore(value: 0)
                let failure = Box<(any Error)?>(nil)
                let writer = Thread {
                    do {
                        for _ in 0..<10 { try store.append(onboarding, to: s) }
                    } catch { failure.value = error }
                    finished.signal()
                }
                writer.start()
                finished.wait()
                #expect(failure.value == nil)
                return (before, try tx.headSequence(), try tx.records(of: s), try tx.sessionInfo(for: s))
            }
            #expect(headBefore == 3)
            #expect(headAfter == 3)
            #expect(records.count == 3)
            #expect(info?.headVersion == 3)
            #expect(try store.headSequence() == 33)
        }
    }

    @Test func concurrentWritersFromManyTasksKeepTheLogGapFree() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let store = try TransitionStore(
            directory: directory.path,
            configuration: StoreConfiguration(environment: EnvironmentConfiguration(options: .noSync)))
        defer { store.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    let id = try SessionID("worker-\(worker)")
                    for version in 0..<25 as Range<UInt64> {
                        try store.append([onboarding[0]], to: id, expectedVersion: .exact(version))
                    }
                }
            }
            try await group.waitForAll()
        }
        let all = try store.records()
        #expect(all.map(\.sequence) == Array(1...100))
        #expect(try store.sessions().map(\.headVersion) == [25, 25, 25, 25])
    }
}

/// A mutable box for handing a value back from another thread (synchronised by a semaphore).
/// `@unchecked Sendable`: the thread writes `value` before signalling the semaphore the reader
/// waits on, and nobody touches it meanwhile.
final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

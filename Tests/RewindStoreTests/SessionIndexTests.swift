import Foundation
import RewindBaseTestSupport
import RewindStore
import Testing

/// The session index (format 2): full blocks of `StoreLayout.indexBlockSize` versions in
/// `session-index`, the versions after the last full block in the session's `sessions` entry. Every
/// read of a session's records must equal the same read of a plain list of its records.
@Suite("Session index")
struct SessionIndexTests {
    /// Appends random batches to a few sessions (some crossing block boundaries, some filling a
    /// block exactly); returns each session's sequences by version (index 0 = version 1).
    func randomLog(_ store: TransitionStore, seed: UInt64) throws -> [SessionID: [UInt64]] {
        var random = SeededRandom(seed: seed)
        let ids = try ["a", "ab", "b", "c"].map(session)
        var model: [SessionID: [UInt64]] = [:]
        var sequence: UInt64 = 0
        for _ in 0..<40 {
            var batch: [SessionAppend] = []
            for id in ids.shuffled(using: &random) where random.chance(0.6) {
                let count = random.chance(0.2) ? StoreLayout.indexBlockSize : Int.random(in: 1...40, using: &random)
                let head = UInt64(model[id]?.count ?? 0)
                batch.append(
                    SessionAppend(
                        session: id, expectedVersion: head == 0 ? .noStream : .exact(head),
                        transitions: (0..<count).map { step("e\($0)", from: ["s"], to: ["s\($0)"]) }))
                for _ in 0..<count {
                    sequence += 1
                    model[id, default: []].append(sequence)
                }
            }
            if !batch.isEmpty { try store.append(batch) }
        }
        return model
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func everyReadOfASessionEqualsItsPlainList(seed: UInt64) throws {
        try withStore { store, _ throws in
            let model = try randomLog(store, seed: seed)
            var random = SeededRandom(seed: seed &* 7919)
            for (id, sequences) in model {
                let head = UInt64(sequences.count)
                let info = try #require(try store.sessionInfo(for: id))
                #expect(info.headVersion == head && info.headSequence == sequences.last && info.recordCount == head)
                let all = try store.records(of: id)
                #expect(all.map(\.version) == Array(1...head))
                #expect(all.map(\.sequence) == sequences)
                #expect(try store.records(of: id, direction: .backward).map(\.sequence) == sequences.reversed())
                for _ in 0..<30 {
                    let low = UInt64.random(in: 1...head + 2, using: &random)
                    let high = UInt64.random(in: low...head + 3, using: &random)
                    let expected = (low...high).filter { $0 <= head }
                    #expect(try store.records(of: id, versions: low...high).map(\.version) == expected)
                    #expect(
                        try store.records(of: id, versions: low...high, direction: .backward).map(\.version)
                            == expected.reversed())
                    let limit = Int.random(in: 1...70, using: &random)
                    let forward = try store.read { try $0.records(of: id, from: low, limit: limit) }
                    #expect(forward.map(\.version) == Array((low...max(low, head)).filter { $0 <= head }.prefix(limit)))
                    let backward = try store.read {
                        try $0.records(of: id, from: high, direction: .backward, limit: limit)
                    }
                    #expect(backward.map(\.version) == Array((1...min(high, head)).reversed().prefix(limit)))
                }
            }
        }
    }

    @Test func aSessionReadsTheSameAfterReopening() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        var model: [SessionID: [UInt64]] = [:]
        do {
            let store = try TransitionStore(directory: directory.path)
            model = try randomLog(store, seed: 11)
            store.close()
        }
        let store = try TransitionStore(directory: directory.path)
        defer { store.close() }
        for (id, sequences) in model {
            #expect(try store.records(of: id).map(\.sequence) == sequences)
        }
    }
}

import RewindLMDB
import RewindStore
import Testing

@Suite("Corruption")
struct CorruptionTests {
    @Test func aRecordCorruptedBehindTheStoresBackIsReportedWithItsSequence() throws {
        try withStore { store, directory throws in
            let s = try session("s")
            try store.append(onboarding + onboarding, to: s)
            // Flip bytes of record 3 through a raw LMDB handle on the same directory.
            let env = try Environment(directory: directory.path)
            defer { env.close() }
            let log = try env.database(named: StoreLayout.log, create: false)
            try env.write { txn throws in
                let key = StoreKey.uint64(3)
                var bytes = try #require(try txn.get(key, in: log))
                bytes[bytes.count / 2] ^= 0xFF
                bytes[bytes.count / 2 + 1] ^= 0x0F
                try txn.put(bytes, forKey: key, in: log)
            }
            let error = #expect(throws: StoreError.self) { _ = try store.record(at: 3) }
            guard case .corruptedRecord(let sequence, let reason)? = error else {
                Issue.record("expected corruptedRecord, got \(String(describing: error))")
                return
            }
            #expect(sequence == 3)
            #expect(reason.contains("checksum"))
            #expect(try store.record(at: 2)?.event == "continue")
            #expect(try store.record(at: 4)?.event == "start")
            #expect(try store.records(from: 4).count == 3)
            #expect(try store.records(of: s, versions: 4...6).count == 3)
            // Reading across it names it too.
            let across = #expect(throws: StoreError.self) { _ = try store.records(of: s) }
            #expect(across == error)
        }
    }

    @Test func aTruncatedRecordIsReportedWithItsSequence() throws {
        try withStore { store, directory throws in
            try store.append(onboarding, to: try session("s"))
            let env = try Environment(directory: directory.path)
            defer { env.close() }
            let log = try env.database(named: StoreLayout.log, create: false)
            try env.write { txn throws in
                let key = StoreKey.uint64(2)
                let bytes = try #require(try txn.get(key, in: log))
                try txn.put(Array(bytes.prefix(5)), forKey: key, in: log)
            }
            let error = #expect(throws: StoreError.self) { _ = try store.record(at: 2) }
            #expect(error?.description.contains("corrupted record at sequence 2") == true)
            #expect(try store.record(at: 1) != nil)
            #expect(try store.record(at: 3) != nil)
        }
    }

    @Test func anIndexEntryPointingAtAnotherRecordIsACorruptedEntryNotThatRecord() throws {
        try withStore { store, directory throws in
            let s = try session("s")
            let t = try session("t")
            let steps = (0..<40).map { step("e\($0)", from: ["a"], to: ["b\($0)"]) }
            try store.append(steps, to: s)  // sequences 1…40; versions 1…32 are an index block
            try store.append(Array(steps.prefix(3)), to: t)  // sequences 41…43
            let env = try Environment(directory: directory.path)
            defer { env.close() }
            let index = try env.database(named: StoreLayout.sessionIndex, create: false)
            // Version 2 of 's' made to point at sequence `target` (8 bytes per version in the block).
            func point(version2At target: UInt64) throws {
                try env.write { txn throws in
                    let key = StoreKey.compound("s", 1)
                    var block = try #require(try txn.get(key, in: index))
                    withUnsafeBytes(of: target.bigEndian) { block.replaceSubrange(8..<16, with: $0) }
                    try txn.put(block, forKey: key, in: index)
                }
            }
            for (target, owner) in [(41 as UInt64, "'t' version 1"), (5, "'s' version 5")] {
                try point(version2At: target)
                let expected = StoreError.corruptedEntry(
                    database: StoreLayout.sessionIndex, key: "'s' version 2",
                    reason: "it points at sequence \(target), which holds \(owner)")
                #expect(throws: expected) { _ = try store.records(of: s) }
                #expect(throws: expected) { _ = try store.records(of: s, versions: 1...3) }
                #expect(throws: expected) { _ = try store.records(of: s, direction: .backward) }
            }
            // Past the log's end, and before its first sequence: no record there to lend.
            for target in [999 as UInt64, 0] {
                try point(version2At: target)
                let missing = StoreError.corruptedEntry(
                    database: StoreLayout.sessionIndex, key: "'s' version 2",
                    reason: "it points at sequence \(target), which is not in the log")
                #expect(throws: missing) { _ = try store.records(of: s) }
                #expect(throws: missing) { _ = try store.records(of: s, direction: .backward) }
            }
            try point(version2At: 2)
            #expect(try store.records(of: s).map(\.version) == Array(1...40))
            #expect(try store.records(of: t).map(\.sequence) == [41, 42, 43])
        }
    }
}

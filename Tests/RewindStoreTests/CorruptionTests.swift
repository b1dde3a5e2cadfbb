import Testing
import RewindStore

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
}

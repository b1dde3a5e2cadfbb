import Testing

@testable import RewindStore

/// Damaged erasure entries in `meta` (an erased range, a tombstone, a notice) are typed errors
/// naming the entry, and `check` reports them instead of failing or crashing.
@Suite("Damaged erasure entries")
struct ErasureEntryTests {
    @Test func aDamagedErasedRangeIsACorruptedEntryAndCheckSaysWhere() throws {
        try withStore { store, _ throws in
            _ = try store.write { tx throws in try tx.append(onboarding, to: try session("s")) }
            try store.write { tx throws in
                // first > last: not a range.
                try tx.writeTransaction.put(
                    StoreKey.uint64(2), forKey: StoreLayout.erasedRangePrefix + StoreKey.uint64(9),
                    in: tx.databases.meta)
            }
            #expect(throws: StoreError.self) { try store.read { try $0.erasedRanges() } }
            let report = try store.check()
            #expect(!report.isConsistent)
            #expect(report.problem?.location.contains("'erased'") == true, "\(report)")
        }
    }

    @Test func aDamagedNoticeOrTombstoneIsACorruptedEntry() throws {
        try withStore { store, _ throws in
            _ = try store.write { tx throws in try tx.append(onboarding, to: try session("s")) }
            _ = try store.write { tx throws in try tx.eraseSessions([try session("s")], reason: .requested, at: .now())
            }
            #expect(try store.read { try $0.erasure(of: try session("s")) }?.reason == .requested)
            try store.write { tx throws in
                let secret = try tx.storeSecretCreatingIfNeeded()
                try tx.writeTransaction.put(
                    [1, 2], forKey: StoreReadTransaction.tombstoneKey(of: try session("s"), secret: secret),
                    in: tx.databases.meta)
                try tx.writeTransaction.put(
                    [9], forKey: StoreLayout.erasureNoticePrefix + StoreKey.uint64(5), in: tx.databases.meta)
            }
            #expect(throws: StoreError.self) { try store.read { try $0.erasure(of: try session("s")) } }
            #expect(throws: StoreError.self) { try store.read { try $0.erasureNotices() } }
        }
    }
}

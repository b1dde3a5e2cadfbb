import Foundation
import Testing
@testable import RewindStore

/// The decoded session entries a store remembers: used only when LMDB holds the very bytes
/// remembered, so other writers and aborted transactions are never hidden.
@Suite("Session head cache")
struct SessionHeadCacheTests {
    @Test func aRememberedHeadCountsOnlyForTheSameBytes() throws {
        let cache = SessionHeadCache(capacity: 2)
        let info = SessionInfo(
            session: try session("s"), headVersion: 3, headSequence: 9, machine: "m", recordCount: 3,
            created: Timestamp(microsecondsSince1970: 1), updated: Timestamp(microsecondsSince1970: 2), origin: nil)
        let head = SessionHead(info: info, recent: [4, 7, 9])
        var bytes: [UInt8] = []
        SessionInfoCodec.encode(head, into: &bytes)
        cache.remember(head, as: bytes)
        #expect(bytes.withUnsafeBytes { cache.head(for: info.session, stored: $0) } == head)
        var changed = bytes
        changed[2] ^= 1
        #expect(changed.withUnsafeBytes { cache.head(for: info.session, stored: $0) } == nil)
        #expect(bytes.dropLast().withUnsafeBytes { cache.head(for: info.session, stored: $0) } == nil)
        let otherID = try session("other")
        #expect(bytes.withUnsafeBytes { cache.head(for: otherID, stored: $0) } == nil)
        // Past its capacity it starts over.
        for name in ["a", "b"] {
            var other = head
            other.info.session = try session(name)
            cache.remember(other, as: bytes)
        }
        #expect(bytes.withUnsafeBytes { cache.head(for: info.session, stored: $0) } == nil)
    }

    @Test func anotherWriterAndAnAbortedTransactionAreNeverHidden() throws {
        try withStore { store, directory throws in
            let id = try session("s")
            try store.append([onboarding[0]], to: id, expectedVersion: .noStream)
            // A second store on the directory (its own cache) moves the session on.
            let other = try TransitionStore(directory: directory.path)
            try other.append([onboarding[1], onboarding[2]], to: id, expectedVersion: .exact(1))
            #expect(throws: StoreError.versionConflict(session: id, expected: .exact(1), actual: 3)) {
                try store.append([onboarding[1]], to: id, expectedVersion: .exact(1))
            }
            try store.append([onboarding[1]], to: id, expectedVersion: .exact(3))
            try other.append([onboarding[2]], to: id, expectedVersion: .exact(4))
            other.close()
            // An append whose transaction is aborted leaves LMDB (and so the next append) as it was.
            struct Abort: Error {}
            #expect(throws: Abort.self) {
                try store.write { txn in
                    try txn.append([onboarding[0]], to: id, expectedVersion: .exact(5))
                    throw Abort()
                }
            }
            let result = try store.append([onboarding[0]], to: id, expectedVersion: .exact(5))
            #expect(result.lastVersion == 6)
            #expect(try store.records(of: id).map(\.version) == Array(1...6))
        }
    }
}

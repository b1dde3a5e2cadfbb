import Foundation
import RewindLMDB
import Testing

@Suite("Transactions")
struct TransactionTests {
    /// Runs `body` with a fresh environment and a database named "t".
    func withDatabase(_ body: (Environment, Database) throws -> Void) throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let env = try Environment(directory: directory.path)
        defer { env.close() }
        try body(env, try env.database(named: "t"))
    }

    struct Planned: Error {}

    @Test func aThrowingWriteClosureAbortsEverythingItWrote() throws {
        try withDatabase { env, db in
            try env.write { txn in try txn.put([1], forKey: [1], in: db) }
            #expect(throws: Planned.self) {
                try env.write { txn in
                    try txn.put([2], forKey: [2], in: db)
                    try txn.delete([1], in: db)
                    throw Planned()
                }
            }
            let (one, two) = try env.read { txn in (try txn.get([1], in: db), try txn.get([2], in: db)) }
            #expect(one == [1])
            #expect(two == nil)
        }
    }

    @Test func aWriteSeesItsOwnWritesBeforeCommitting() throws {
        try withDatabase { env, db in
            let seen = try env.write { txn in
                try txn.put([5], forKey: [5], in: db)
                return try txn.get([5], in: db)
            }
            #expect(seen == [5])
        }
    }

    @Test func aTransactionUsedAfterItsClosureThrows() throws {
        try withDatabase { env, db in
            let escaped = try env.read { txn in txn }
            let error = #expect(throws: LMDBError.self) { _ = try escaped.get([1], in: db) }
            #expect(error?.message.contains("transaction has ended") == true)
        }
    }

    @Test func noOverwriteRefusesAnExistingKey() throws {
        try withDatabase { env, db in
            try env.write { try $0.put([1], forKey: [1], in: db) }
            let error = #expect(throws: LMDBError.self) {
                try env.write { try $0.put([2], forKey: [1], in: db, flags: .noOverwrite) }
            }
            #expect(error?.isKeyExists == true)
            #expect(error?.operation.contains("mdb_put") == true)
            #expect(try env.read { try $0.get([1], in: db) } == [1])
        }
    }

    @Test func appendRefusesAKeyThatIsNotTheGreatest() throws {
        try withDatabase { env, db in
            try env.write { txn in
                for i in 1...3 as ClosedRange<UInt64> { try txn.put([1], forKey: i.key, in: db, flags: .append) }
            }
            let error = #expect(throws: LMDBError.self) {
                try env.write { try $0.put([1], forKey: UInt64(2).key, in: db, flags: .append) }
            }
            #expect(error?.isKeyExists == true)
        }
    }

    @Test func aReservedValueIsWrittenInPlaceAndARefusedOneIsNeverOffered() throws {
        try withDatabase { env, db in
            try env.write { txn in
                try UInt64(5).key.withUnsafeBytes { key in
                    try txn.put(reserving: 3, forKey: key, in: db, flags: .append) { value in
                        #expect(value.count == 3)
                        value.copyBytes(from: [7, 8, 9])
                    }
                }
            }
            #expect(try env.read { try $0.get(UInt64(5).key, in: db) } == [7, 8, 9])
            // Refused (not the greatest key): the closure never sees any space.
            var offered = false
            #expect(throws: LMDBError.self) {
                try env.write { txn in
                    try UInt64(4).key.withUnsafeBytes { key in
                        try txn.put(reserving: 3, forKey: key, in: db, flags: .append) { _ in offered = true }
                    }
                }
            }
            #expect(!offered)
        }
    }

    @Test func deleteReportsWhetherTheKeyExisted() throws {
        try withDatabase { env, db in
            try env.write { try $0.put([1], forKey: [1], in: db) }
            let (first, second) = try env.write { txn in (try txn.delete([1], in: db), try txn.delete([1], in: db)) }
            #expect(first)
            #expect(!second)
            #expect(try env.read { try $0.contains([1], in: db) } == false)
        }
    }

    @Test func removeAllEmptiesADatabaseButKeepsIt() throws {
        try withDatabase { env, db in
            try env.write { txn in for i in 0..<10 as Range<UInt64> { try txn.put([1], forKey: i.key, in: db) } }
            try env.write { try $0.removeAll(in: db) }
            #expect(try env.read { try $0.statistics(of: db).entries } == 0)
            try env.write { try $0.put([1], forKey: [1], in: db) }
        }
    }

    @Test func borrowedValuesAreLentToTheClosure() throws {
        try withDatabase { env, db in
            let big = [UInt8](repeating: 0xAB, count: 10_000)
            try env.write { try $0.put(big, forKey: [1], in: db) }
            let (count, allAB) =
                try env.read { txn in
                    try txn.withValue(forKey: [1], in: db) { ($0.count, $0.allSatisfy { $0 == 0xAB }) }
                } ?? (0, false)
            #expect(count == 10_000)
            #expect(allAB)
            let missing = try env.read { try $0.withValue(forKey: [2], in: db) { $0.count } }
            #expect(missing == nil)
        }
    }

    @Test func anEmptyKeyIsRejectedWithBadValueSize() throws {
        try withDatabase { env, db in
            let error = #expect(throws: LMDBError.self) { try env.write { try $0.put([1], forKey: [], in: db) } }
            #expect(error?.code == LMDBError.Code.badValueSize)
        }
    }

    @Test func aReadSnapshotIgnoresWritesCommittedWhileItRuns() throws {
        try withDatabase { env, db in
            try env.write { try $0.put([1], forKey: [1], in: db) }
            let (before, after) = try env.read { txn -> ([UInt8]?, [UInt8]?) in
                let before = try txn.get([1], in: db)
                // Another thread commits a change while this snapshot is open.
                let done = DispatchSemaphore(value: 0)
                let failure = Box<(any Error)?>(nil)
                let writer = Thread {
                    do { try env.write { try $0.put([2], forKey: [1], in: db) } } catch { failure.value = error }
                    done.signal()
                }
                writer.start()
                done.wait()
                #expect(failure.value == nil)
                return (before, try txn.get([1], in: db))
            }
            #expect(before == [1])
            #expect(after == [1])
            #expect(try env.read { try $0.get([1], in: db) } == [2])
        }
    }
}

/// A mutable box for handing a value back from another thread (synchronised by a semaphore).
/// `@unchecked Sendable`: the thread writes `value` before signalling the semaphore the reader
/// waits on, and nobody touches it meanwhile.
final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

@Suite("Nesting")
struct NestingTests {
    @Test func aReadInsideAReadSeesTheSameData() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let env = try Environment(directory: directory.path)
        defer { env.close() }
        let db = try env.database(named: "n")
        try env.write { try $0.put([1], forKey: [1], in: db) }
        let inner = try env.read { _ in try env.read { try $0.get([1], in: db) } }
        #expect(inner == [1])
    }

    @Test func aWriteInsideAWriteThrowsInsteadOfDeadlocking() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let env = try Environment(directory: directory.path)
        defer { env.close() }
        let db = try env.database(named: "n")
        let error = #expect(throws: LMDBError.self) {
            try env.write { txn in
                try txn.put([1], forKey: [1], in: db)
                try env.write { try $0.put([2], forKey: [2], in: db) }
            }
        }
        #expect(error?.message.contains("already inside a write transaction") == true)
        // The outer write was aborted; the environment still works.
        try env.write { try $0.put([3], forKey: [3], in: db) }
        #expect(try env.read { try $0.get([1], in: db) } == nil)
    }

    @Test func aWriteThatMustGrowTheMapInsideAReadThrowsInsteadOfDeadlocking() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let env = try Environment(directory: directory.path, configuration: EnvironmentConfiguration(mapSize: 64 << 10))
        defer { env.close() }
        let db = try env.database(named: "n")
        let error = #expect(throws: LMDBError.self) {
            try env.read { _ in
                try env.write { txn in
                    for i in 0..<64 as Range<UInt64> {
                        try txn.put([UInt8](repeating: 1, count: 4096), forKey: i.key, in: db)
                    }
                }
            }
        }
        #expect(error?.message.contains("inside a transaction of this environment") == true)
        // Outside the read, the same write grows the map and succeeds.
        try env.write { txn in
            for i in 0..<64 as Range<UInt64> { try txn.put([UInt8](repeating: 1, count: 4096), forKey: i.key, in: db) }
        }
        #expect(try env.read { try $0.statistics(of: db).entries } == 64)
    }
}

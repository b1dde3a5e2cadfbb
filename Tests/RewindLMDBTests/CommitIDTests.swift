import Foundation
import Testing

@testable import RewindLMDB

/// `ReadTransaction.baseCommit()` and `WriteTransaction.resultCommit()`: equal exactly when two
/// transactions read the same data, across writes that change nothing, other handles of the
/// environment and a compaction, which starts LMDB's transaction ids again.
@Suite("Commit ids")
struct CommitIDTests {
    func withEnvironment(_ body: (Environment, Database, TestDirectory) throws -> Void) throws {
        let directory = try TestDirectory("commit-id")
        defer { directory.remove() }
        let env = try Environment(directory: directory.path)
        defer { env.close() }
        try body(env, try env.database(named: "t"), directory)
    }

    func base(_ env: Environment) throws -> CommitID { try env.read { try $0.baseCommit() } }

    @Test func aWriteThatPutsIsTheNextCommitAndReadsSeeIt() throws {
        try withEnvironment { env, db, _ in
            let before = try base(env)
            let (writeBase, result) = try env.write { txn in
                let writeBase = try txn.baseCommit()
                try txn.put([1], forKey: [1], in: db)
                return (writeBase, try txn.resultCommit())
            }
            #expect(writeBase == before)
            #expect(result != before && result.follows(before))
            #expect(try base(env) == result)
        }
    }

    @Test func aWriteThatChangesNothingLeavesItsBaseAndTheNextWriteFollowsIt() throws {
        try withEnvironment { env, db, _ in
            let before = try base(env)
            let result = try env.write { txn in
                _ = try txn.get([9], in: db)
                #expect(try txn.delete([9], in: db) == false)  // nothing deleted: no write
                return try txn.resultCommit()
            }
            #expect(result == before)
            #expect(try base(env) == before)
            let next = try env.write { txn in
                try txn.put([2], forKey: [2], in: db)
                return try txn.resultCommit()
            }
            #expect(next.follows(before))
            #expect(try base(env) == next)
        }
    }

    @Test(arguments: ["delete", "removeAll", "createDatabase"])
    func everyKindOfWriteMakesANewCommit(kind: String) throws {
        try withEnvironment { env, db, _ in
            try env.write { txn in try txn.put([1], forKey: [1], in: db) }
            let before = try base(env)
            let result = try env.write { txn in
                switch kind {
                case "delete": #expect(try txn.delete([1], in: db))
                case "removeAll": try txn.removeAll(in: db)
                default: _ = try txn.openDatabase(named: "created", create: true)
                }
                return try txn.resultCommit()
            }
            #expect(result.follows(before))
            #expect(try base(env) == result)
        }
    }

    @Test func openingADatabaseThatExistsIsNoWrite() throws {
        try withEnvironment { env, _, _ in
            let before = try base(env)
            let result = try env.write { txn in
                _ = try txn.openDatabase(named: "t", create: true)
                return try txn.resultCommit()
            }
            #expect(result == before)
            #expect(try base(env) == before)
        }
    }

    @Test func anotherHandleOfTheDirectoryMovesTheCommitOn() throws {
        try withEnvironment { env, db, directory in
            let before = try base(env)
            let other = try Environment(directory: directory.path)
            defer { other.close() }
            try other.write { txn in try txn.put([3], forKey: [3], in: try other.database(named: "t")) }
            #expect(try base(env).follows(before))
            #expect(try base(env) == base(other))
            _ = db
        }
    }

    /// A compaction's copy starts LMDB's transaction ids again: the same id after it is another
    /// commit, which the opening tells apart.
    @Test func aCommitAfterACompactionIsNeverOneFromBeforeIt() throws {
        try withEnvironment { env, db, _ in
            var before: [CommitID] = [try base(env)]
            for key in UInt8(0)..<20 {
                try env.write { txn in try txn.put([key], forKey: [key], in: db) }
                before.append(try base(env))
            }
            _ = try env.compact(headroom: 0)
            var after: [CommitID] = [try base(env)]
            for key in UInt8(20)..<60 {
                try env.write { txn in try txn.put([key], forKey: [key], in: db) }
                after.append(try base(env))
            }
            // The premise: LMDB's ids after the compaction reach the ids from before it.
            #expect(Set(after.map(\.transaction)).isSuperset(of: before.suffix(5).map(\.transaction)))
            #expect(Set(after).isDisjoint(with: before))
            #expect(!after.contains { later in before.contains { later.follows($0) } })
        }
    }

    @Test func anEndedTransactionRefusesToTellItsCommit() throws {
        try withEnvironment { env, db, _ in
            let read = try env.read { $0 }
            #expect(throws: LMDBError.self) { try read.baseCommit() }
            let write = try env.write { txn in
                try txn.put([1], forKey: [1], in: db)
                return txn
            }
            #expect(throws: LMDBError.self) { try write.resultCommit() }
        }
    }
}

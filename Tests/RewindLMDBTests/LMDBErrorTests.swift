import RewindLMDB
import Testing

@Suite("LMDBError")
struct LMDBErrorTests {
    @Test func descriptionNamesOperationCodeAndLMDBsMessage() {
        let error = LMDBError(code: LMDBError.Code.mapFull, operation: "mdb_put in database 'log'")
        #expect(error.isMapFull)
        #expect(!error.isNotFound)
        #expect(error.message.contains("MDB_MAP_FULL"))
        #expect(error.description.contains("mdb_put in database 'log'"))
        #expect(error.description.contains("\(LMDBError.Code.mapFull)"))
    }

    /// What a `catch` clause sees: the code of a real LMDB failure (a `noOverwrite` put of an
    /// existing key) matched as GRDB matches `ResultCode`s, and a different code not matched.
    @Test func codesMatchErrorsInCatchPatterns() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let env = try Environment(directory: directory.path)
        defer { env.close() }
        let db = try env.database(named: "t")
        try env.write { try $0.put([1], forKey: [1], in: db) }
        func putAgain() throws { try env.write { try $0.put([2], forKey: [1], in: db, flags: .noOverwrite) } }

        var caught: [String] = []
        do {
            try putAgain()
        } catch LMDBError.mapFull {
            caught.append("mapFull")
        } catch LMDBError.keyExists {
            caught.append("keyExists")
        } catch {
            caught.append("other: \(error)")
        }
        do {
            try putAgain()
        } catch LMDBError.Code.notFound {
            caught.append("notFound")
        } catch let error as LMDBError where error.code == .keyExists {
            caught.append("keyExists by code")
        } catch {
            caught.append("other: \(error)")
        }
        #expect(caught == ["keyExists", "keyExists by code"])

        // In a `switch` over the code, and against errors that are not LMDB's.
        let error = #expect(throws: LMDBError.self) { try putAgain() }
        switch error?.code {
        case .keyExists?: break
        default: Issue.record("expected keyExists, got \(String(describing: error))")
        }
        struct Other: Error {}
        #expect(!(LMDBError.keyExists ~= Other()))
        #expect(LMDBError.Code(rawValue: LMDBError.Code.keyExists.rawValue) == .keyExists)
        #expect(LMDBError(code: 28, operation: "a commit").isDiskFull)
        #expect(
            LMDBError(code: 28, operation: "a commit").description
                == "LMDB error 28 during a commit: \(LMDBError(code: 28, operation: "x").message)")
    }
}

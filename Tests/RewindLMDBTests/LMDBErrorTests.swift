import Testing
import RewindLMDB

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
}

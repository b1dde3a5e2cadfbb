import Foundation
import Testing
import RewindStore

@Suite("SessionID")
struct SessionIDTests {
    @Test func anEmptyIDIsRejected() {
        let error = #expect(throws: StoreError.self) { _ = try SessionID("") }
        guard case .invalidSessionID(let id, let reason)? = error else {
            Issue.record("expected invalidSessionID, got \(String(describing: error))")
            return
        }
        #expect(id == "")
        #expect(reason.contains("empty"))
    }

    @Test func idsWithNULOrTooManyBytesAreRejected() {
        #expect(throws: StoreError.self) { _ = try SessionID("a\u{0}b") }
        #expect(throws: StoreError.self) { _ = try SessionID(String(repeating: "x", count: SessionID.maximumByteCount + 1)) }
        #expect(throws: Never.self) { _ = try SessionID(String(repeating: "x", count: SessionID.maximumByteCount)) }
    }

    @Test func validIDsKeepTheirTextAndOrderByBytes() throws {
        let a = try SessionID("user-ä")
        #expect(a.rawValue == "user-ä")
        #expect(try SessionID("a") < SessionID("ab"))
        #expect(try SessionID("ab") < SessionID("b"))
    }

    @Test func decodingValidatesLikeTheInitializer() throws {
        let decoded = try JSONDecoder().decode([SessionID].self, from: Data(#"["s1"]"#.utf8))
        #expect(decoded == [try SessionID("s1")])
        #expect(throws: DecodingError.self) { _ = try JSONDecoder().decode([SessionID].self, from: Data(#"[""]"#.utf8)) }
    }
}

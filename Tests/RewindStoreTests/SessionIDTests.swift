import Foundation
import Testing
import RewindStore

@Suite("SessionID")
struct SessionIDTests {
    @Test func anEmptyIDIsRejected() {
        // A variable, not a literal: `SessionID("")` would be the literal initializer, which traps.
        let empty = ""
        let error = #expect(throws: StoreError.self) { _ = try SessionID(empty) }
        guard case .invalidSessionID(let id, let reason)? = error else {
            Issue.record("expected invalidSessionID, got \(String(describing: error))")
            return
        }
        #expect(id == "")
        #expect(reason.contains("empty"))
    }

    @Test func idsWithNULOrTooManyBytesAreRejected() {
        let withNUL = "a\u{0}b"
        #expect(throws: StoreError.self) { _ = try SessionID(withNUL) }
        #expect(throws: StoreError.self) { _ = try SessionID(String(repeating: "x", count: SessionID.maximumByteCount + 1)) }
        #expect(throws: Never.self) { _ = try SessionID(String(repeating: "x", count: SessionID.maximumByteCount)) }
    }

    @Test func validIDsKeepTheirTextAndOrderByBytes() throws {
        let a = SessionID("user-ä")
        #expect(a.rawValue == "user-ä")
        #expect(SessionID("a") < SessionID("ab"))
        #expect(SessionID("ab") < SessionID("b"))
    }

    @Test func decodingValidatesLikeTheInitializer() throws {
        let decoded = try JSONDecoder().decode([SessionID].self, from: Data(#"["s1"]"#.utf8))
        #expect(decoded == [SessionID("s1")])
        #expect(throws: DecodingError.self) { _ = try JSONDecoder().decode([SessionID].self, from: Data(#"[""]"#.utf8)) }
    }
}

extension SessionIDTests {
    /// Ids are the store's keys: equal, hashed and ordered by their bytes, so two canonically
    /// equivalent texts (which `String` calls equal) are two ids, consistently in all three.
    @Test func canonicallyEquivalentTextsAreDifferentIdsByTheirBytes() throws {
        let composed = SessionID("caf\u{E9}")
        let decomposed = SessionID("cafe\u{301}")
        #expect(composed.rawValue == decomposed.rawValue)  // String's view
        #expect(composed != decomposed)
        #expect(Set([composed, decomposed]).count == 2)
        #expect((composed < decomposed) != (decomposed < composed))
        #expect(SessionID("caf\u{E9}") == composed)
        #expect(Set([composed, SessionID("caf\u{E9}")]).count == 1)
    }
}

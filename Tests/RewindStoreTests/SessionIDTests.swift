import Foundation
import RewindStore
import Testing

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
        #expect(throws: StoreError.self) {
            _ = try SessionID(String(repeating: "x", count: SessionID.maximumByteCount + 1))
        }
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
        #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode([SessionID].self, from: Data(#"[""]"#.utf8))
        }
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

extension SessionIDTests {
    /// A new session's id has no control characters (an id is printed on terminals); the error
    /// names the first one and its position, and a long id is shortened in it.
    @Test func newIDsRefuseControlCharactersNamingThem() {
        for (text, named) in [
            ("evil\u{1B}[2J", "U+001B (ESC) at position 5"), ("a\nb", "U+000A (line feed) at position 2"),
            ("x\u{7F}", "U+007F (DEL) at position 2"), ("c1\u{85}", "U+0085 at position 3"),
        ] {
            #expect(throws: Never.self) { _ = try SessionID(text) }  // ids of old stores stay readable
            let error = #expect(throws: StoreError.self) { _ = try SessionID(new: text) }
            #expect(error?.description.contains(named) == true, "\(String(describing: error))")
            #expect(error?.description.contains("\u{1B}") == false && error?.description.contains("\n") == false)
        }
        #expect(throws: Never.self) { _ = try SessionID(new: "kanji-27 日本 café") }
        let long = String(repeating: "y", count: 1_000)
        let error = #expect(throws: StoreError.self) { _ = try SessionID(new: long) }
        #expect(error?.description.contains(String(repeating: "y", count: 60) + "... (1000 characters)") == true)
        #expect((error?.description.count ?? .max) < 200, "\(String(describing: error))")
    }

    /// The store checks a new session's id when an append creates it, whatever made the id.
    @Test func anAppendCreatingASessionWhoseIDHasAControlCharacterWritesNothing() throws {
        try withStore { store, _ throws in
            let text = "bell\u{7}"  // a variable: a literal would take the literal initializer
            let id = try SessionID(text)
            let error = #expect(throws: StoreError.self) { try store.append(onboarding, to: id) }
            #expect(error?.description.contains("U+0007 (BEL) at position 5") == true, "\(String(describing: error))")
            #expect(try store.headSequence() == 0)
            #expect(try store.sessionInfo(for: id) == nil)
        }
    }
}

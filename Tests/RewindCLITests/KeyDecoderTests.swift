import Testing

@testable import RewindCLI

/// The bytes a terminal sends, decoded into keys.
struct KeyDecoderTests {
    private func keys(_ text: String) -> [Key] {
        KeyDecoder.decode(Array(text.utf8)).keys
    }

    @Test func arrowsInBothCursorModes() {
        #expect(keys("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D") == [.up, .down, .right, .left])
        #expect(keys("\u{1B}OA\u{1B}OB\u{1B}OC\u{1B}OD") == [.up, .down, .right, .left])
    }

    @Test func modifiedArrowsAreArrowsWithTheirModifiersNotHome() {
        #expect(keys("\u{1B}[1;5C") == [.arrow(.right, modifiers: 4)])  // Ctrl+→
        #expect(keys("\u{1B}[1;2D") == [.arrow(.left, modifiers: 1)])  // Shift+←
        #expect(keys("\u{1B}[1;3A") == [.arrow(.up, modifiers: 2)])  // Alt+↑
    }

    @Test func homeEndPagesDeleteAndInsertInEveryEncoding() {
        #expect(keys("\u{1B}[H\u{1B}[F\u{1B}OH\u{1B}OF") == [.home, .end, .home, .end])
        #expect(keys("\u{1B}[1~\u{1B}[4~\u{1B}[7~\u{1B}[8~") == [.home, .end, .home, .end])
        #expect(keys("\u{1B}[5~\u{1B}[6~\u{1B}[3~\u{1B}[2~") == [.pageUp, .pageDown, .delete, .insert])
    }

    @Test func aLoneEscapeIsEscapeWithoutWaitingForMore() {
        #expect(keys("\u{1B}") == [.escape])
        #expect(keys("\u{1B}\u{1B}[C") == [.escape, .right])
    }

    @Test func unknownSequencesAreConsumedWholeAndReportedUnknown() {
        // F5, Ctrl+Home, F1 (SS3), a mouse-ish CSI with a private marker, Alt+x.
        #expect(keys("\u{1B}[15~q") == [.unknown, .character("q")])
        #expect(keys("\u{1B}[1;5H") == [.unknown])
        #expect(keys("\u{1B}OP3") == [.unknown, .character("3")])
        #expect(keys("\u{1B}[<0;3;4M") == [.unknown])
        #expect(keys("\u{1B}x") == [.unknown])
    }

    @Test func controlBytesAndCharacters() {
        #expect(keys("\r\n\u{7F}\u{08}\u{03}\t") == [.enter, .enter, .backspace, .backspace, .interrupt, .tab])
        #expect(keys("g3x日") == [.character("g"), .character("3"), .character("x"), .character("日")])
        #expect(keys("\u{01}") == [.unknown])
    }

    @Test func aSequenceCutByTheReadIsKeptForTheNextUnlessFinal() {
        let cut = KeyDecoder.decode(Array("q\u{1B}[1;".utf8), final: false)
        #expect(cut.keys == [.character("q")])
        #expect(cut.consumed == 1)
        let cutCharacter = KeyDecoder.decode(Array("日".utf8).dropLast().map { $0 }, final: false)
        #expect(cutCharacter.keys.isEmpty && cutCharacter.consumed == 0)
        let final = KeyDecoder.decode(Array("q\u{1B}[1;".utf8), final: true)
        #expect(final.keys == [.character("q"), .unknown])
        #expect(final.consumed == 5)
    }

    @Test func invalidUTF8IsUnknownByteByByte() {
        #expect(KeyDecoder.decode([0xFF, 0x41]).keys == [.unknown, .character("A")])
        #expect(KeyDecoder.decode([0xE6, 0x41, 0x41]).keys == [.unknown, .character("A"), .character("A")])
    }
}

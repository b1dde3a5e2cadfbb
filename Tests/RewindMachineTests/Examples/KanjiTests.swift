import RewindExamples
import Testing

@testable import RewindMachine

struct KanjiTests {
    typealias Kanji = ExampleMachines.Kanji

    @Test func browsingKanjiAndWordsCarriesTheirData() throws {
        let machine = try Kanji.machine()
        let sun = Kanji.Character(character: "日", meanings: ["sun", "day"])
        let japan = Kanji.Word(word: "日本")
        var state = try machine.enter("all", in: MachineState()).state
        state = try machine.enter("detail", data: try JSONValue(encoding: sun), in: state).state
        #expect(try state.data(of: "detail", as: Kanji.Character.self) == sun)
        state = try machine.enter("list", data: try JSONValue(encoding: japan), in: state).state
        #expect(try state.data(of: "list", as: Kanji.Word.self) == japan)
        #expect(state.data["detail"] == nil)
        state = try machine.enter("all", in: state).state
        #expect(state.configuration == ["all"])
        #expect(state.data.isEmpty)
    }

    @Test func allPopsToRootExceptOnFirstEntry() throws {
        let interpreter = Interpreter(machine: try Kanji.machine())
        var stack = ScreenStack()
        var firstEntries: [Bool] = []
        interpreter.perform = { stack.apply($0.navigation) }
        interpreter.onDidEnter("all") { firstEntries.append($0.previousState == nil) }
        try interpreter.enter("all")
        try interpreter.enter("detail", data: ["character": "月", "meanings": ["moon"]])
        try interpreter.enter("list", data: ["word": "月曜日"])
        #expect(stack.screens == ["all", "detail", "list"])
        try interpreter.enter("all")
        #expect(stack.screens == ["all"])
        #expect(firstEntries == [true, false])
    }

    @Test func invalidMovesFollowTheSeedsRules() throws {
        let machine = try Kanji.machine()
        let all = try machine.start().state
        #expect(!machine.canEnter("list", in: all))
        #expect(machine.canEnter("detail", in: all))
        let detail = try machine.enter("detail", in: all).state
        #expect(!machine.canEnter("detail", in: detail))
        #expect(machine.canEnter("list", in: detail) && machine.canEnter("all", in: detail))
        #expect(throws: MachineError.cannotEnter(from: ["all"], to: "list")) { try machine.enter("list", in: all) }
    }
}

import RewindExamples
import Testing

@testable import RewindMachine

/// `enum Screen: String` / `enum Event: String` work wherever strings do.
struct TypedNamesTests {
    typealias Kanji = ExampleMachines.Kanji
    typealias LoadingView = ExampleMachines.LoadingView

    @Test func interpreterAcceptsTypedStatesEventsAndEncodableData() throws {
        let interpreter = Interpreter(machine: try Kanji.machine())
        var entered: [Kanji.Character] = []
        interpreter.onDidEnter(Kanji.State.detail) { change in
            if let kanji = try? change.data(as: Kanji.Character.self) { entered.append(kanji) }
        }
        try interpreter.enter(Kanji.State.all)
        #expect(interpreter.canEnter(Kanji.State.detail))
        #expect(!interpreter.canEnter(Kanji.State.list))
        let moon = Kanji.Character(character: "月", meanings: ["moon"])
        try interpreter.enter(Kanji.State.detail, data: moon)
        #expect(entered == [moon])
        #expect(interpreter.state.isActive(Kanji.State.detail))
    }

    @Test func typedEventsWithEncodablePayloads() throws {
        let interpreter = Interpreter(machine: try LoadingView.machine())
        try interpreter.start()
        let model = LoadingView.Model(title: "Today", items: ["x"])
        try interpreter.send(LoadingView.Event.loaded, payload: model)
        #expect(try interpreter.state.data(of: "ready", as: LoadingView.Model.self) == model)
        let machine = interpreter.machine
        let step = try machine.send(LoadingView.Event.reload, in: interpreter.state)
        #expect(step.target == [LoadingView.State.loading.rawValue])
        #expect(throws: MachineError.self) { try machine.enter(LoadingView.State.error, in: step.state) }
        #expect(!machine.canEnter(LoadingView.State.error, in: step.state))
        try interpreter.send(LoadingView.Event.reload)
        try interpreter.send(LoadingView.Event.failed, payload: "offline")
        #expect(interpreter.state.data["error"] == "offline")
        try interpreter.send(LoadingView.Event.retry)
        try interpreter.send(LoadingView.Event.loaded, payload: ["title": "T", "items": ["a"]])
        #expect(
            try interpreter.state.data(of: "ready", as: LoadingView.Model.self)
                == LoadingView.Model(title: "T", items: ["a"]))
    }
}

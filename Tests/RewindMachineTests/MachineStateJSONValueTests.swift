import Foundation
import RewindBaseTestSupport
import RewindExamples
import RewindMachine
import Testing

struct MachineStateJSONValueTests {
    private func sortedJSON(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(value))
    }

    private static func randomState(using generator: inout SeededRandom) -> MachineState {
        func name() -> String { RandomJSON.string(using: &generator) }
        var history: [String: [String]] = [:]
        for _ in 0..<Int.random(in: 0...3, using: &generator) { history[name()] = [name(), name()] }
        var data: [String: JSONValue] = [:]
        for _ in 0..<Int.random(in: 0...3, using: &generator) { data[name()] = RandomJSON.value(using: &generator) }
        let queue = (0..<Int.random(in: 0...2, using: &generator)).map { _ in
            Event(name(), payload: RandomJSON.value(using: &generator))
        }
        let sends = (0..<Int.random(in: 0...2, using: &generator)).map { _ in
            ScheduledEvent(
                event: Event(name(), payload: RandomJSON.value(using: &generator)),
                due: .milliseconds(Int64.random(in: .min ... .max, using: &generator)),
                sendID: Bool.random(using: &generator) ? name() : nil)
        }
        return MachineState(
            configuration: (0..<Int.random(in: 0...4, using: &generator)).map { _ in name() },
            history: history, context: RandomJSON.value(using: &generator), data: data,
            internalQueue: queue, pendingSends: sends, isFinished: Bool.random(using: &generator))
    }

    @Test func writtenStatesAreTheBytesOfTheirCodableEncoding() throws {
        var generator = SeededRandom(seed: 0x57A7E)
        for _ in 0..<300 {
            let state = Self.randomState(using: &generator)
            let bytes = try state.jsonValue.jsonBytes()
            #expect(bytes == (try sortedJSON(state)))
            #expect(try JSONDecoder().decode(MachineState.self, from: Data(bytes)) == state)
            #expect(try MachineState(jsonValue: try JSONValue(jsonBytes: try sortedJSON(state))) == state)
        }
    }

    @Test func statesWrittenWithoutATreeAreTheSameBytes() throws {
        var generator = SeededRandom(seed: 0xD1EC7)
        for _ in 0..<300 {
            let state = Self.randomState(using: &generator)
            var bytes: [UInt8] = []
            try state.writeJSON(into: &bytes)
            #expect(bytes == (try sortedJSON(state)))
            #expect(bytes == (try state.jsonValue.jsonBytes()))
        }
        let stack = ScreenStack(
            entries: [NavigationEntry(screen: "a/\u{1}\"", data: ["k": [1, "x"]]), NavigationEntry(screen: "b")])
        var stackBytes: [UInt8] = []
        try stack.writeJSON(into: &stackBytes)
        #expect(stackBytes == (try sortedJSON(stack)))
        #expect(stackBytes == (try stack.jsonValue.jsonBytes()))
    }

    @Test func aNumberThatCannotBeWrittenIsNamedByTheSamePathWithoutATree() throws {
        let nan = JSONValue.number(Double.nan)
        let states = [
            MachineState(context: ["items": [1, nan]]),
            MachineState(data: ["form": ["x": nan]]),
            MachineState(internalQueue: [Event("a"), Event("b", payload: [nan])]),
            MachineState(pendingSends: [ScheduledEvent(event: Event("t", payload: ["v": nan]), due: .milliseconds(1))]),
        ]
        for state in states {
            var bytes: [UInt8] = []
            let direct = #expect(throws: JSONWriteError.self) { try state.writeJSON(into: &bytes) }
            let tree = #expect(throws: JSONWriteError.self) { try state.jsonValue.jsonBytes() }
            #expect(direct?.path == tree?.path)
            #expect(direct?.path.isEmpty == false)
        }
        let stack = ScreenStack(entries: [NavigationEntry(screen: "s", data: ["n": nan])])
        var bytes: [UInt8] = []
        let direct = #expect(throws: JSONWriteError.self) { try stack.writeJSON(into: &bytes) }
        #expect(direct?.path == ["entries", "0", "data", "n"])
    }

    @Test func statesOfARunningExampleRoundTrip() throws {
        let machine = try ExampleMachines.Onboarding.machine()
        var state = try machine.start(context: ["user": "ada", "tries": 2]).state
        state = try machine.send("launch", in: state).state
        state = try machine.send("start", payload: ["page": 1], in: state).state
        #expect(try MachineState(jsonValue: state.jsonValue) == state)
        #expect(try state.jsonValue.jsonBytes() == Array(try state.encoded()))
    }

    @Test func missingOrMistypedMembersNameTheirPath() throws {
        var value = MachineState(configuration: ["a"]).jsonValue
        value["isFinished"] = nil
        #expect(throws: JSONShapeError(path: [], expected: "a member 'isFinished'")) {
            try MachineState(jsonValue: value)
        }

        value = MachineState(internalQueue: [Event("go")]).jsonValue
        value["internalQueue"] = [["name": 3, "payload": nil]]
        #expect(throws: JSONShapeError(path: ["internalQueue", "0", "name"], expected: "a string")) {
            try MachineState(jsonValue: value)
        }

        value = MachineState(history: ["h": ["a"]]).jsonValue
        value["history"] = ["h": ["a", 1]]
        #expect(throws: JSONShapeError(path: ["history", "h", "1"], expected: "a string")) {
            try MachineState(jsonValue: value)
        }
    }

    @Test func unknownMembersAreIgnoredAndNullSendIDsAreNil() throws {
        let send = ScheduledEvent(event: Event("tick"), due: .milliseconds(5))
        var value = MachineState(pendingSends: [send]).jsonValue
        value["future"] = true
        value["pendingSends"] = [["event": ["name": "tick", "payload": nil], "dueMilliseconds": 5, "sendID": nil]]
        #expect(try MachineState(jsonValue: value) == MachineState(pendingSends: [send]))
    }

    @Test func dueTimesKeepEveryInt64AndRefuseFractions() throws {
        for due in [Int64.min, -(1 << 53) - 1, (1 << 53) + 1, .max] {
            let state = MachineState(pendingSends: [ScheduledEvent(event: Event("late"), due: .milliseconds(due))])
            let bytes = try state.jsonValue.jsonBytes()
            #expect(bytes == (try sortedJSON(state)))
            #expect(try MachineState(jsonValue: try JSONValue(jsonBytes: bytes)) == state)
        }
        let fractional: JSONValue = ["event": ["name": "x", "payload": nil], "dueMilliseconds": 1.5]
        #expect(throws: JSONShapeError.self) { try ScheduledEvent(jsonValue: fractional) }
    }

    @Test func navigationStacksAndEventsMatchTheirCodableEncoding() throws {
        let stack = ScreenStack(screens: ["home", "a/b"])
        #expect(try stack.jsonValue.jsonBytes() == (try sortedJSON(stack)))
        #expect(try ScreenStack(jsonValue: stack.jsonValue) == stack)
        let event = Event("pick", payload: ["id": 7])
        #expect(try event.jsonValue.jsonBytes() == (try sortedJSON(event)))
        #expect(try Event(jsonValue: event.jsonValue) == event)
    }
}

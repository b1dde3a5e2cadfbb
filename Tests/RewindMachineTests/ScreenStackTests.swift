import Foundation
import RewindMachine
import Testing

/// Navigation stack entries carry their screen's data (issue 18 §2).
struct NavigationStackTests {
    static let day: JSONValue = ["character": "日"]
    static let book: JSONValue = ["character": "本"]
    static let japan: JSONValue = ["word": "日本"]

    @Test func theSameScreenPushedTwiceWithDifferentDataIsTwoEntries() {
        var stack = ScreenStack()
        let entered: [String: JSONValue] = ["detail": Self.day]
        stack.apply([.setRoot("all"), .push("detail")]) { entered[$0] }
        stack.apply([.push("detail")]) { $0 == "detail" ? Self.book : nil }
        #expect(
            stack.entries == [
                NavigationEntry(screen: "all"), NavigationEntry(screen: "detail", data: Self.day),
                NavigationEntry(screen: "detail", data: Self.book),
            ])
        #expect(stack.screens == ["all", "detail", "detail"])
        #expect(stack.top == NavigationEntry(screen: "detail", data: Self.book))
        #expect(stack.count == 3)
    }

    @Test func aPopUncoversTheEntryBelowWithItsData() {
        var stack = ScreenStack(entries: [
            NavigationEntry(screen: "all"), NavigationEntry(screen: "detail", data: Self.day),
            NavigationEntry(screen: "list", data: Self.japan), NavigationEntry(screen: "detail", data: Self.book),
        ])
        // The step entered nothing with data: the uncovered entry is returned for the state to show.
        #expect(stack.apply([.pop]) { _ in nil } == NavigationEntry(screen: "list", data: Self.japan))
        #expect(stack.screens == ["all", "detail", "list"])
        #expect(stack.apply([.popTo("detail")]) { _ in nil } == NavigationEntry(screen: "detail", data: Self.day))
        // Nothing popped: nothing uncovered.
        #expect(stack.apply([.popTo("missing")]) { _ in nil } == nil)
        #expect(stack.apply([.push("list")]) { _ in Self.japan } == nil)
        #expect(stack.apply([.popToRoot]) { _ in nil } == NavigationEntry(screen: "all"))
        // The root never pops.
        #expect(stack.apply([.pop]) { _ in nil } == nil)
        #expect(stack.entries == [NavigationEntry(screen: "all")])
    }

    @Test func dataTheStepEnteredTheUncoveredScreenWithWinsAndBecomesTheEntrysData() {
        var stack = ScreenStack(entries: [
            NavigationEntry(screen: "all"), NavigationEntry(screen: "detail", data: Self.day),
            NavigationEntry(screen: "list", data: Self.japan),
        ])
        #expect(stack.apply([.pop]) { $0 == "detail" ? Self.book : nil } == nil)
        #expect(stack.entries.last == NavigationEntry(screen: "detail", data: Self.book))
    }

    @Test func aSessionsStepTakesEntryDataFromItsMicrostepsAndRestoresItIntoTheState() throws {
        var stack = ScreenStack(screens: ["all"])
        // Later microsteps win, as the record's merged state data does.
        let microsteps = [
            Microstep(
                event: nil, transitions: [], source: [], target: [], exited: [], entered: ["detail"],
                navigation: [.push("detail")], data: ["detail": Self.book]),
            Microstep(
                event: nil, transitions: [], source: [], target: [], exited: [], entered: ["detail"],
                navigation: [], data: ["detail": Self.day]),
        ]
        var state = MachineState(configuration: ["detail"], data: ["detail": Self.day])
        #expect(!stack.apply([.push("detail")], of: microsteps, to: &state))
        #expect(stack.top == NavigationEntry(screen: "detail", data: Self.day))
        stack.apply([.push("list")], of: [], to: &state)

        // Back to detail, entered without data: the entry's data is the state's again.
        state = MachineState(configuration: ["detail"])
        #expect(stack.apply([.pop], of: [], to: &state))
        #expect(state.data == ["detail": Self.day])
        #expect(try state.data(of: "detail", as: [String: String].self) == ["character": "日"])

        // An uncovered screen whose state is not active: the state is left alone.
        stack.apply([.push("list")], of: [], to: &state)
        var other = MachineState(configuration: ["elsewhere"])
        #expect(!stack.apply([.pop], of: [], to: &other))
        #expect(other.data.isEmpty)
    }

    @Test func theCodableEncodingHasEntriesAndScreensAndTheFirstFormatStillDecodes() throws {
        let stack = ScreenStack(entries: [
            NavigationEntry(screen: "all"), NavigationEntry(screen: "detail", data: Self.day),
        ])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(stack), as: UTF8.self)
        #expect(
            text
                == #"{"entries":[{"data":null,"screen":"all"},{"data":{"character":"日"},"screen":"detail"}],"screens":["all","detail"]}"#
        )
        #expect(try JSONDecoder().decode(ScreenStack.self, from: Data(text.utf8)) == stack)
        #expect(try ScreenStack(jsonValue: try JSONValue(jsonBytes: Array(text.utf8))) == stack)
        #expect(try JSONValue(jsonBytes: Array(text.utf8)) == stack.jsonValue)

        // Written before entries had data: screens only.
        let old = Data(#"{"screens":["all","detail","list"]}"#.utf8)
        let expected = ScreenStack(entries: ["all", "detail", "list"].map { NavigationEntry(screen: $0, data: .null) })
        #expect(try JSONDecoder().decode(ScreenStack.self, from: old) == expected)
        #expect(try ScreenStack(jsonValue: try JSONValue(jsonBytes: Array(old))) == expected)
        // An entry without `data` has none.
        #expect(try ScreenStack(jsonValue: ["entries": [["screen": "all"]]]) == ScreenStack(screens: ["all"]))
    }

    @Test func aMalformedStackIsAShapeErrorNamingWhere() {
        #expect(throws: JSONShapeError.self) { try ScreenStack(jsonValue: ["entries": [["data": 1]]]) }
        do {
            _ = try ScreenStack(jsonValue: ["entries": [["screen": "all"], ["screen": 3]]])
            Issue.record("a screen that is a number was accepted")
        } catch {
            #expect(error.path == ["entries", "1", "screen"])
        }
        #expect(throws: JSONShapeError.self) { try ScreenStack(jsonValue: [:]) }
    }

    enum Route: Hashable, Decodable {
        case detail(String)
        case list(String)

        private enum CodingKeys: String, CodingKey { case screen, data }
        private struct Character: Decodable { var character: String }
        private struct Word: Decodable { var word: String }

        init(from decoder: any Decoder) throws {
            let entry = try decoder.container(keyedBy: CodingKeys.self)
            switch try entry.decode(String.self, forKey: .screen) {
            case "detail": self = .detail(try entry.decode(Character.self, forKey: .data).character)
            case "list": self = .list(try entry.decode(Word.self, forKey: .data).word)
            case let screen:
                throw DecodingError.dataCorruptedError(
                    forKey: .screen, in: entry, debugDescription: "no route for \(screen)")
            }
        }
    }

    @Test func theNavigationPathIsTheEntriesAboveTheRootAsTheAppsRoutes() throws {
        let stack = ScreenStack(entries: [
            NavigationEntry(screen: "all"), NavigationEntry(screen: "detail", data: Self.day),
            NavigationEntry(screen: "list", data: Self.japan),
        ])
        #expect(try stack.navigationPath(as: Route.self) == [.detail("日"), .list("日本")])
        #expect(try ScreenStack(screens: ["all"]).navigationPath(as: Route.self) == [])
        #expect(try ScreenStack().navigationPath(as: Route.self) == [])
        // Every entry, root included, as a plain struct.
        struct Entry: Decodable, Equatable {
            var screen: String
            var data: JSONValue
        }
        #expect(try stack.routes(as: Entry.self).map(\.screen) == ["all", "detail", "list"])

        let broken = ScreenStack(entries: stack.entries + [NavigationEntry(screen: "list", data: ["word": 3])])
        do {
            _ = try broken.navigationPath(as: Route.self)
            Issue.record("an entry whose data is not a word decoded")
        } catch {
            #expect(error.index == 3)
            #expect(error.screen == "list")
            #expect(error.description.hasPrefix("navigation entry 3 (screen 'list') does not decode as Route: "))
        }
        do {
            _ = try stack.routes(as: Route.self)
            Issue.record("the root, which has no route, decoded")
        } catch {
            #expect(error.index == 0 && error.screen == "all")
        }
    }
}

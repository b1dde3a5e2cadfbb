import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// A session's navigation stack holds its screens *with their data* (issue 18 §2): the Kanji
/// walk Detail(日) → List(日本) → Detail(本) → back → back, live and after a restart.
struct SessionNavigationTests {
    typealias Route = KanjiNavigation.Route

    @Test func liveEntriesHoldTheDataTheyWereEnteredWithAndBackRestoresIt() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try KanjiNavigation.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "user", machine: KanjiNavigation.name)
        let shown = LockedBox<[JSONValue]>([])
        session.onDidEnter("detail") { change in shown.withValue { $0.append(change.data) } }
        session.onDidEnter("list") { change in shown.withValue { $0.append(change.data) } }
        #expect(session.navigationStack.entries == KanjiNavigation.stacks[0])

        try await session.enter("detail", data: KanjiNavigation.day)
        try await session.enter("list", data: KanjiNavigation.japan)
        try await session.enter("detail", data: KanjiNavigation.book)
        #expect(session.navigationStack.entries == KanjiNavigation.stacks[3])
        // The same screen twice, with different data: two entries.
        #expect(
            session.navigationStack.entries.filter { $0.screen == "detail" }.map(\.data)
                == [KanjiNavigation.day, KanjiNavigation.book])

        let back = try await session.send("back")
        #expect(session.navigationStack.entries == KanjiNavigation.stacks[4])
        #expect(session.state.data == ["list": KanjiNavigation.japan])
        #expect(back.state == session.state)
        let backToDay = try await session.send("back")
        #expect(session.navigationStack.entries == KanjiNavigation.stacks[5])
        #expect(
            try session.state.data(of: "detail", as: ExampleMachines.Kanji.Character.self)
                == ExampleMachines.Kanji.Character(character: "日", meanings: ["day", "sun"]))
        #expect(backToDay.state.data == ["detail": KanjiNavigation.day])
        // The hooks see the screen's data when going back, too.
        #expect(
            shown.current == [
                KanjiNavigation.day, KanjiNavigation.japan, KanjiNavigation.book, KanjiNavigation.japan,
                KanjiNavigation.day,
            ])
        #expect(
            try session.navigationPath(as: Route.self)
                == [.detail(ExampleMachines.Kanji.Character(character: "日", meanings: ["day", "sun"]))])
    }

    @Test(arguments: [1, 4, 64] as [UInt64])
    func aResumedSessionHasTheLiveEntriesAndStateData(snapshotInterval: UInt64) async throws {
        let fixture = try EngineFixture(snapshotInterval: snapshotInterval)
        defer { fixture.remove() }
        var live: [SessionSnapshot] = []
        do {
            let engine = try fixture.open(registering: [try KanjiNavigation.machine()])
            defer { engine.close() }
            let session = try await KanjiNavigation.walk("user", in: engine)
            live.append(session.snapshot)
        }
        let engine = try fixture.open(registering: [try KanjiNavigation.machine()])
        defer { engine.close() }
        let resumed = try engine.session("user")
        #expect(resumed.snapshot == live[0])
        #expect(resumed.navigationStack.entries == KanjiNavigation.stacks[5])
        #expect(resumed.state.data == KanjiNavigation.stateData[5])
        // And it goes on from there as the live session would.
        try await resumed.enter("list", data: ["word": "日曜"])
        #expect(
            resumed.navigationStack.entries == KanjiNavigation.stacks[5] + [
                KanjiNavigation.entry("list", ["word": "日曜"])
            ])
        try await resumed.send("back")
        #expect(resumed.navigationStack.entries == KanjiNavigation.stacks[5])
        #expect(resumed.state.data == KanjiNavigation.stateData[5])
    }

    @Test func aSnapshotOfTheFirstFormatStillResumesWithTheBestDataItCanHave() async throws {
        // Snapshots every 4 versions: the one of version 4 (all › detail(日) › list(日本) › detail(本))
        // is rewritten as the code before entries had data wrote it: `{"screens": [...]}`.
        let fixture = try EngineFixture(snapshotInterval: 4)
        defer { fixture.remove() }
        let key = SessionSnapshot.key(session: SessionID("user"), version: 4)
        do {
            let engine = try fixture.open(registering: [try KanjiNavigation.machine()])
            defer { engine.close() }
            try await KanjiNavigation.walk("user", in: engine)
            let stored = try #require(try engine.store.read { try $0.value(forKey: key, in: .snapshots) })
            var json = try JSONValue(jsonBytes: stored)
            guard case .object(var members) = json else { throw CocoaError(.coderInvalidValue) }
            members["navigation"] = ["screens": ["all", "detail", "list", "detail"]]
            json = .object(members)
            let old = try json.jsonBytes()
            #expect(
                String(decoding: old, as: UTF8.self).contains(
                    #""navigation":{"screens":["all","detail","list","detail"]}"#))
            try engine.writableStore.write { try $0.put(old, forKey: key, in: .snapshots) }

            // Both decoders read it: no data below the top, the top's from the state it shows.
            let expected = [
                KanjiNavigation.entry("all"), KanjiNavigation.entry("detail"), KanjiNavigation.entry("list"),
                KanjiNavigation.entry("detail", KanjiNavigation.book),
            ]
            let fast = try old.withUnsafeBytes { try SessionSnapshot.decode($0, session: SessionID("user")) }
            #expect(fast.navigation.entries == expected)
            #expect(try JSONDecoder().decode(SessionSnapshot.self, from: Data(old)).navigation.entries == expected)
        }
        let engine = try fixture.open(registering: [try KanjiNavigation.machine()])
        defer { engine.close() }
        let resumed = try engine.session("user")
        // The old snapshot lacks the data of the entries below its top, so resuming passes it over
        // for the records, which hold that data: going back restores it.
        #expect(resumed.navigationStack.screens == ["all", "detail"])
        #expect(
            resumed.navigationStack.entries == [
                KanjiNavigation.entry("all"), KanjiNavigation.entry("detail", KanjiNavigation.day),
            ])
        #expect(resumed.state.configuration == ["detail"])
        try await resumed.enter("list", data: KanjiNavigation.japan)
        #expect(resumed.navigationStack.top == KanjiNavigation.entry("list", KanjiNavigation.japan))
    }
}

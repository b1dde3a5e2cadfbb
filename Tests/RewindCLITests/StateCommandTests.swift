import Foundation
import Testing

/// `rewind state SESSION [--at V]`: a session at its head or at any version.
struct StateCommandTests {
    @Test func stateAtEachVersionIsWhatReplayShowsAtThatVersion() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let sessions = try await demo.tool.sessionRows(["sessions"])
        for machine in ["onboarding", "map", "kanji"] {
            let row = try #require(sessions.filter { $0.machine == machine }.max { $0.version < $1.version })
            let steps = try await demo.tool.json([CommandOutputs.Point].self, ["replay", row.session])
            #expect(steps.map(\.version) == Array(1...row.version), "\(row.session)")
            let history = try await demo.tool.json([CommandOutputs.HistoryRow].self, ["history", row.session])
            for version in 1...row.version {
                let point = try await demo.tool.json(
                    CommandOutputs.Point.self, ["state", row.session, "--at", String(version)])
                #expect(point.session == row.session)
                #expect(point.version == version)
                #expect(point == steps[Int(version) - 1], "\(row.session)@\(version)")
                let record = history[Int(version) - 1]
                #expect(point.event == record.event, "\(row.session)@\(version)")
                #expect(point.source == record.source, "\(row.session)@\(version)")
                #expect(Set(record.target).isSubset(of: Set(point.configuration)), "\(row.session)@\(version)")
                #expect(point.navigation == record.navigation, "\(row.session)@\(version)")
            }
            let head = try await demo.tool.json(CommandOutputs.Point.self, ["state", row.session])
            #expect(head == steps.last, "\(row.session)")
        }
    }

    @Test func stateTextShowsTheSessionVersionAndNavigationStack() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let sessions = try await demo.tool.sessionRows(["sessions", "--machine", "kanji"])
        let row = try #require(sessions.max { $0.version < $1.version })
        let point = try await demo.tool.json(CommandOutputs.Point.self, ["state", row.session, "--at", "2"])
        let text = try await demo.tool.text(["state", row.session, "--at", "2"])
        #expect(text.contains("session     \(row.session) (kanji), \(row.version) versions"))
        #expect(text.contains("version     2"))
        #expect(text.contains("navigation  \(try CommandOutputs.stackText(point.navigationStack))"))
        #expect(text.contains("active      \(point.activeStates.joined(separator: ", "))"))
    }

    @Test func negativeVersionsGetTheBadVersionMessageNotAUsageError() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let sessions = try await demo.tool.sessionRows(["sessions"])
        let row = try #require(sessions.first)
        for command in [
            ["state", row.session, "--at", "-1"], ["replay", row.session, "--at", "-1"],
            ["fork", row.session, "--at", "-1"], ["graph", row.machine, "--session", row.session, "--at", "-1"],
        ] {
            // `state` shows version 0 (before the first record); the others start at a record.
            let first = command[0] == "state" ? 0 : 1
            expectOneLineError(
                try await demo.tool.run(command), containing: ["bad version '-1'", "from \(first) to \(row.version)"])
        }
    }

    @Test func jsonCarriesTheMachineAndVersionCountTheTextShows() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let sessions = try await demo.tool.sessionRows(["sessions"])
        let row = try #require(sessions.first)
        struct State: Decodable {
            var machine: String
            var versions: UInt64
            var version: UInt64
        }
        let state = try await demo.tool.json(State.self, ["state", row.session, "--at", "1"])
        #expect(state.machine == row.machine && state.versions == row.version && state.version == 1)
        let text = try await demo.tool.text(["state", row.session])
        #expect(text.contains("(\(row.machine)), \(row.version) versions"))
    }

    @Test func badVersionsAndUnknownSessionsAreOneLineErrors() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let sessions = try await demo.tool.sessionRows(["sessions"])
        let row = try #require(sessions.first)
        let head = row.version
        for bad in ["18446744073709551616", String(head + 1), "two", "1.5", ""] {
            expectOneLineError(
                try await demo.tool.run(["state", row.session, "--at", bad]),
                containing: ["bad version '\(bad)'", "0 to \(head)"])
        }
        // Version 0: the session before its first record, no active state.
        let before = try await demo.tool.run(["state", row.session, "--at", "0", "--json"])
        #expect(before.status == 0, "\(before)")
        let point = try JSONSerialization.jsonObject(with: Data(before.stdout.utf8)) as? [String: Any]
        #expect(point?["version"] as? Int == 0, "\(before.stdout)")
        expectOneLineError(try await demo.tool.run(["state", "nobody"]), containing: ["unknown session 'nobody'"])
        // Not even a valid session id.
        expectOneLineError(try await demo.tool.run(["state", "no body/..", "--json"]), containing: ["unknown session"])
    }
}

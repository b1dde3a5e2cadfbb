import Foundation
import Rewind
import RewindTestSupport
import Testing

/// `rewind demo`: simulated users appended to the store, the summary, the funnels it prints,
/// reruns that append and `--fresh` that starts over.
struct DemoCommandTests {
    @Test func demoOnANewStoreReportsWhatItAppendedAndTheStoreHoldsExactlyThat() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let summary = demo.summary
        #expect(summary.created)
        #expect(summary.sessionsAdded == DemoStore.sessions)
        #expect(summary.totalSessions == DemoStore.sessions)
        #expect(summary.totalRecords == UInt64(summary.transitionsAdded))
        #expect(summary.averageBatch >= 1)

        let sessions = try await demo.tool.sessionRows(["sessions"])
        #expect(sessions.count == summary.totalSessions)
        #expect(sessions.reduce(0) { $0 + $1.version } == summary.totalRecords)
        // A third of the users in each of the three flows.
        let machines = Dictionary(grouping: sessions, by: \.machine).mapValues(\.count)
        #expect(machines == ["onboarding": 10, "map": 10, "kanji": 10])
        let stats = try await demo.tool.json(CommandOutputs.Stats.self, ["stats"])
        #expect(stats.records == summary.totalRecords)
    }

    @Test func rerunningTheDemoAppendsNewSessionsAndFreshStartsOver() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let before = try await demo.tool.sessionRows(["sessions"])

        let again = try await demo.tool.json(DemoStore.Summary.self, ["demo", "--sessions", "30"])
        #expect(!again.created)
        #expect(again.sessionsAdded == 30)
        #expect(again.totalSessions == before.count + 30)
        #expect(again.totalRecords == demo.summary.totalRecords + UInt64(again.transitionsAdded))
        let after = try await demo.tool.sessionRows(["sessions"])
        #expect(after.count == before.count + 30)
        // The old sessions are untouched; the new ones have new ids.
        let old = Dictionary(uniqueKeysWithValues: before.map { ($0.session, $0.version) })
        for row in after where old[row.session] != nil {
            #expect(old[row.session] == row.version, "\(row.session)")
        }
        #expect(Set(after.map(\.session)).count == after.count)

        let fresh = try await demo.tool.json(DemoStore.Summary.self, ["demo", "--sessions", "30", "--fresh"])
        #expect(fresh.created)
        #expect(fresh.totalSessions == 30)
        #expect(fresh.totalRecords == UInt64(fresh.transitionsAdded))
        let restarted = try await demo.tool.sessionRows(["sessions"])
        #expect(restarted.count == 30)
    }

    @Test func demoInAnEmptyDirectoryReportsTheStoreCreated() async throws {
        // An empty directory is no store (as for every other command): the demo creates one there.
        let directory = try TemporaryDirectory(prefix: "rewind-cli")
        defer { directory.remove() }
        let tool = try RewindTool(store: directory.path)
        let summary = try await tool.json(DemoStore.Summary.self, ["demo", "--sessions", "3"])
        #expect(summary.created)
        #expect(summary.totalSessions == 3)
    }

    @Test func theSameSeedOnAFreshStoreRecordsTheSameSessions() async throws {
        let first = try await DemoStore.make(seed: 7)
        defer { first.remove() }
        let second = try await DemoStore.make(seed: 7)
        defer { second.remove() }
        let a = try await first.tool.sessionRows(["sessions"])
        let b = try await second.tool.sessionRows(["sessions"])
        #expect(a.map(\.session).sorted() == b.map(\.session).sorted())
        let versions = { (rows: [CommandOutputs.SessionRow]) in
            Dictionary(uniqueKeysWithValues: rows.map { ($0.session, "\($0.version) \($0.states)") })
        }
        #expect(versions(a) == versions(b))
    }

    @Test func jsonCarriesTheFunnelsAndStacksTheTextShows() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-cli")
        defer { directory.remove() }
        let tool = try RewindTool(store: directory.path)
        struct Report: Decodable {
            struct Funnel: Decodable {
                struct Step: Decodable {
                    var state: String
                    var reached: Int
                    var stopped: Int
                }
                var machine: String
                var sessions: Int
                var steps: [Step]
            }
            struct Stacks: Decodable {
                struct Deepest: Decodable {
                    var session: String
                    var stack: [NavigationEntry]
                }
                var machine: String
                var sessions: Int
                var deepest: Int
                var meanDepth: Double
                var deepestStacks: [Deepest]
            }
            var funnels: [Funnel]
            var navigation: Stacks
        }
        let report = try await tool.json(Report.self, ["demo", "--sessions", "30"])
        #expect(Set(report.funnels.map(\.machine)) == ["onboarding", "map", "kanji"])
        let sessions = try await tool.sessionRows(["sessions"])
        for funnel in report.funnels {
            let rows = sessions.filter { $0.machine == funnel.machine }
            #expect(funnel.sessions == rows.count, "\(funnel.machine)")
            for step in funnel.steps {
                #expect(
                    step.stopped == rows.filter { $0.states.contains(step.state) }.count,
                    "\(funnel.machine).\(step.state)")
            }
        }
        #expect(report.navigation.sessions == sessions.filter { $0.machine == "kanji" }.count)
        #expect(!report.navigation.deepestStacks.isEmpty)
        for deepest in report.navigation.deepestStacks {
            let state = try await tool.json(CommandOutputs.Point.self, ["state", deepest.session])
            #expect(state.navigationStack == deepest.stack, "\(deepest.session)")
            #expect(deepest.stack.count <= report.navigation.deepest)
        }
    }

    @Test func theDemoFunnelsAreConsistentWithTheSessionsOfTheStore() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-cli")
        defer { directory.remove() }
        let tool = try RewindTool(store: directory.path)
        let text = try await tool.text(["demo", "--sessions", "30"])
        #expect(text.contains("30 users"))
        #expect(text.contains("store now holds 30 sessions"))

        let funnels = DemoFunnel.parse(text)
        #expect(Set(funnels.map(\.machine)) == ["onboarding", "map", "kanji"], "\(text)")
        let sessions = try await tool.sessionRows(["sessions"])
        for funnel in funnels {
            let rows = sessions.filter { $0.machine == funnel.machine }
            #expect(funnel.sessions == rows.count, "\(funnel.machine)")
            let first = try #require(funnel.steps.first, "\(funnel.machine)")
            // Every session starts in the flow's first screen.
            #expect(first.reached == funnel.sessions, "\(funnel.machine)")
            for step in funnel.steps {
                #expect(step.reached >= step.stopped, "\(funnel.machine).\(step.state)")
                #expect(step.reached <= funnel.sessions, "\(funnel.machine).\(step.state)")
                // "Stopped here" is where sessions are now: their current state.
                let now = rows.filter { $0.states.contains(step.state) }.count
                #expect(step.stopped == now, "\(funnel.machine).\(step.state)")
            }
            // Every session is somewhere along its flow.
            #expect(funnel.steps.reduce(0) { $0 + $1.stopped } == funnel.sessions, "\(funnel.machine)")
        }
    }

    @Test func outOfRangeOptionsAreRefusedWithoutCreatingAStore() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-cli")
        defer { directory.remove() }
        let store = directory.url.appendingPathComponent("store").path
        let tool = try RewindTool(store: store)
        for arguments in [["demo", "--sessions", "-1"], ["demo", "--concurrency", "0"]] {
            let output = try await tool.run(arguments)
            #expect(output.status != 0, "\(arguments)")
            #expect(output.stderr.contains("Error: "), "\(arguments): \(output)")
        }
        #expect(!FileManager.default.fileExists(atPath: store))
    }
}

/// The funnels `rewind demo` prints, read back from its text.
struct DemoFunnel {
    struct Step {
        var state: String
        var reached: Int
        var stopped: Int
    }

    var machine: String
    var sessions: Int
    var steps: [Step]

    /// The funnels of the demo's text output: a `  MACHINE, N sessions` line, then
    /// `    STATE  REACHED ███  stopped here: N` lines.
    static func parse(_ text: String) -> [DemoFunnel] {
        var funnels: [DemoFunnel] = []
        var inFunnels = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("Screen-flow funnels") {
                inFunnels = true
                continue
            }
            guard inFunnels else { continue }
            if line.isEmpty { break }
            let words = line.split(separator: " ")
            if line.hasPrefix("    "), words.count >= 4, let stopped = Int(words[words.count - 1]),
                let reached = Int(words[1]), !funnels.isEmpty
            {
                funnels[funnels.count - 1].steps.append(
                    Step(state: String(words[0]), reached: reached, stopped: stopped))
            } else if line.hasPrefix("  "), words.count == 3, words[0].hasSuffix(","), let count = Int(words[1]) {
                funnels.append(DemoFunnel(machine: String(words[0].dropLast()), sessions: count, steps: []))
            }
        }
        return funnels
    }
}

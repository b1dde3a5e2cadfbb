import Foundation
import Rewind
import RewindTestSupport
import Testing

/// `rewind view --machine NAME`: the funnel equals the screen-flow projection's, a bar lists the
/// sessions stopped there, and a session opens in the same page.
extension ViewerBrowserTests {
    @Suite struct MachinePageBrowserTests {
        struct Bar: Decodable {
            var state: String
            var reached: Int
            var stopped: Int
        }

        @Test func theFunnelIsTheProjectionsAndASessionOpensInThePage() async throws {
            let demo = try await DemoPages.shared.value
            let url = demo.file("machine.html")
            try await demo.run(["view", "--machine", "kanji", "-o", url.path])
            var configuration = EngineConfiguration()
            configuration.readOnly = true
            configuration.projections = [ScreenFlowProjection()]
            let engine = try Engine(directory: demo.store, configuration: configuration)
            let funnel = try engine.screenFlows.funnel(machine: "kanji")
            let stoppedState = try #require(funnel.stoppedAt.filter { $0.value > 0 }.keys.sorted().first)
            let stoppedThere = try engine.screenFlows.sessions(inState: stoppedState, machine: "kanji").map(\.rawValue)
            engine.close()

            let driver = try await WebDriver.start()
            do {
                try await driver.open(url)
                try await driver.wait(until: "document.querySelectorAll('#rw-funnel .rw-bar').length > 0")
                let text = try #require(
                    try await driver.execute(
                        """
                        return JSON.stringify(Array.from(document.querySelectorAll('#rw-funnel .rw-bar')).map(function (b) {
                          return { state: b.getAttribute('data-state'), reached: +b.getAttribute('data-reached'), stopped: +b.getAttribute('data-stopped') }; }));
                        """) as? String)
                let bars = try JSONDecoder().decode([Bar].self, from: Data(text.utf8))
                #expect(
                    Dictionary(uniqueKeysWithValues: bars.map { ($0.state, $0.reached) })
                        == funnel.reached.filter { $0.value > 0 })
                #expect(
                    Dictionary(uniqueKeysWithValues: bars.map { ($0.state, $0.stopped) }).filter { $0.value > 0 }
                        == funnel.stoppedAt.filter { $0.value > 0 })
                try await driver.click("#rw-funnel .rw-bar[data-state='\(stoppedState)']")
                try await driver.wait(until: "document.querySelectorAll('#rw-stopped a[data-session]').length > 0")
                let listed =
                    try await driver.execute(
                        "return Array.from(document.querySelectorAll('#rw-stopped a[data-session]')).map(function (a) { return a.getAttribute('data-session'); });"
                    ) as? [String]
                #expect(Set(listed ?? []) == Set(stoppedThere))
                let opened = try #require(stoppedThere.first)
                try await driver.click("#rw-stopped a[data-session='\(opened)']")
                try await driver.wait(until: "!document.querySelector('#rw-session-view').hidden")
                let head = try #require(try demo.sessions().first { $0.session.rawValue == opened }).headVersion
                try await expectPage(driver, at: head, equals: try await demo.state(opened, at: head))
                try await driver.wait(until: "location.hash.indexOf('session=') === 1")
                // A deep link to a session and version of the machine page.
                try await driver.execute(
                    "location.hash = 'session=' + encodeURIComponent(arguments[0]) + '&v=1';", [opened])
                try await expectPage(driver, at: 1, equals: try await demo.state(opened, at: 1))
                try await driver.click("#rw-back")
                try await driver.wait(until: "!document.querySelector('#rw-machine-view').hidden")
                _ = try Screenshots.write(try await driver.screenshot(), named: "machine-desktop-light.png")
                try await expectNoRequests(driver)
            } catch {
                await driver.quit()
                throw error
            }
            await driver.quit()
        }

        /// `rewind view --machine kanji --upgrade-check FILE`: the page shows the engine's report above
        /// the funnel, lists the incompatible sessions, and one opens at its first divergence.
        @Test func theUpgradeCheckIsShownAndASessionOpensAtItsDivergence() async throws {
            let demo = try await DemoPages.shared.value
            // The Kanji definition without `list`, as `rewind graph --format json` writes it.
            let graph = try await demo.run(["graph", "kanji", "--format", "json"])
            var document = try #require(try JSONSerialization.jsonObject(with: Data(graph.utf8)) as? [String: Any])
            var machine = try #require(document["machine"] as? [String: Any])
            let states = try #require(machine["states"] as? [[String: Any]])
            machine["states"] = states.filter { $0["id"] as? String != "list" }.map { state in
                var state = state
                state["validNextStates"] = (state["validNextStates"] as? [String])?.filter { $0 != "list" }
                return state
            }
            document["machine"] = machine
            let definitionFile = demo.file("kanji-without-list.json")
            try JSONSerialization.data(withJSONObject: document).write(to: definitionFile)
            let url = demo.file("machine-upgrade.html")
            try await demo.run(["view", "--machine", "kanji", "--upgrade-check", definitionFile.path, "-o", url.path])
            var configuration = EngineConfiguration()
            configuration.readOnly = true
            let engine = try Engine(directory: demo.store, configuration: configuration)
            let definition = try MachineDefinition(jsonDocument: try Data(contentsOf: definitionFile))
            let report = try engine.upgradeCheck(
                of: "kanji", against: try Machine(definition), label: "kanji-without-list.json")
            engine.close()
            let incompatible = report.sessions.filter { $0.kind == .incompatible }
            let opened = try #require(incompatible.first { $0.divergence != nil }, "a session in list that entered it")
            let version = try #require(opened.divergence?.version)

            let driver = try await WebDriver.start()
            do {
                try await driver.open(url)
                try await driver.wait(until: "!document.querySelector('#rw-upgrade').hidden")
                let summary =
                    try await driver.execute("return document.querySelector('#rw-upgrade-summary').textContent;")
                    as? String
                #expect(summary == "Does not pass: " + report.description)
                let listed =
                    try await driver.execute(
                        "return Array.from(document.querySelectorAll('#rw-upgrade [data-kind=incompatible] a[data-session]')).map(function (a) { return a.getAttribute('data-session'); });"
                    ) as? [String]
                #expect(Set(listed ?? []) == Set(incompatible.map(\.session)))
                try await driver.click("#rw-upgrade [data-kind=incompatible] a[data-session='\(opened.session)']")
                try await driver.wait(until: "!document.querySelector('#rw-session-view').hidden")
                try await expectPage(driver, at: version, equals: try await demo.state(opened.session, at: version))
                try await driver.click("#rw-back")
                try await driver.wait(until: "!document.querySelector('#rw-machine-view').hidden")
                _ = try Screenshots.write(try await driver.screenshot(), named: "machine-upgrade-check.png")
                try await expectNoRequests(driver)
            } catch {
                await driver.quit()
                throw error
            }
            await driver.quit()
        }
    }
}

import Foundation
import Rewind
import RewindTestSupport
import RewindViewer
import Testing

/// The machine page with an upgrade check (``MachinePage/upgradeCheck``): the page holds the
/// report the engine makes, its totals line, its verdict and each session's detail in words, and
/// nothing when none is given. On a real store.
struct MachinePageUpgradeCheckTests {
    /// The kanji navigation without `list`: a session in it cannot resume, one that went through it diverges.
    static var withoutList: MachineDefinition {
        MachineDefinition(KanjiNavigation.name) {
            StateNode("all", navigation: .popToRoot, validNextStates: ["detail"])
            StateNode("detail", navigation: .push(), validNextStates: ["all"])
        }
    }

    /// A store with three kanji sessions: `walked` went through `list` and ended in `detail`,
    /// `listing` ends in `list`, `reading` only saw `detail`.
    static func engine() async throws -> (EngineFixture, Engine) {
        let fixture = try EngineFixture()
        let engine = try fixture.open(registering: [try KanjiNavigation.machine()]) {
            $0.projections = [ScreenFlowProjection()]
        }
        _ = try await KanjiNavigation.walk("walked", in: engine)
        let listing = try await engine.startSession(id: "listing", machine: KanjiNavigation.name)
        try await listing.enter("detail", data: KanjiNavigation.day)
        try await listing.enter("list", data: KanjiNavigation.japan)
        let reading = try await engine.startSession(id: "reading", machine: KanjiNavigation.name)
        try await reading.enter("detail", data: KanjiNavigation.book)
        return (fixture, engine)
    }

    @Test func thePageHoldsTheEnginesReportWithItsTotalsAndEachSessionInWords() async throws {
        let (fixture, engine) = try await Self.engine()
        defer {
            fixture.remove()
            engine.close()
        }
        let report = try engine.upgradeCheck(
            of: KanjiNavigation.name, against: try Machine(Self.withoutList), label: "v2 </script>")
        #expect(report.incompatible == 1 && report.diverging == 2 && report.unchanged == 2)

        var page = MachinePage(engine: engine, machine: KanjiNavigation.name)
        page.upgradeCheck = report
        let html = try page.html()
        let data = try ViewerPageData.machinePage(html)
        let shown = try #require(data.upgradeCheck)
        #expect(shown.report == report)
        #expect(shown.summary == report.description)
        #expect(
            shown.summary.hasPrefix(
                "v2 </script>: 3 sessions of kanji-back — 2 unchanged, 0 migrated, 1 incompatible; 2 diverge"))
        #expect(!shown.passes)
        #expect(shown.details == report.sessions.map(\.detail))
        let details = Dictionary(uniqueKeysWithValues: zip(report.sessions.map(\.session), shown.details))
        #expect(details["listing"]?.contains("list") == true, "the missing state is named: \(details)")
        #expect(details["walked"]?.contains("list") == true, "the divergence is named: \(details)")
        #expect(details["reading"] == "resumes as it stands")
        // The label cannot end the data's script: data, code, no archive.
        #expect(String(decoding: html, as: UTF8.self).components(separatedBy: "</script>").count == 3)
        // The section the script fills in.
        #expect(String(decoding: html, as: UTF8.self).contains(#"<section id="rw-upgrade""#))
    }

    @Test func withoutACheckThePageHoldsNone() async throws {
        let (fixture, engine) = try await Self.engine()
        defer {
            fixture.remove()
            engine.close()
        }
        let data = try ViewerPageData.machinePage(try MachinePage(engine: engine, machine: KanjiNavigation.name).html())
        #expect(data.machine == KanjiNavigation.name && data.upgradeCheck == nil)
    }
}

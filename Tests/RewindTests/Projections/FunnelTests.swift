import Rewind
import RewindTestSupport
import Testing

/// ``Funnel/add(_:)`` and ``StackDepthStatistics/add(_:)``: the folds a device's queries and a
/// fleet server's use, one session at a time.
struct FunnelTests {
    func flow(_ configuration: [String], reached: [String]) -> ScreenFlowProjection.Flow {
        ScreenFlowProjection.Flow(
            machine: "onboarding", configuration: configuration, stateData: [], lastEvent: "e",
            updated: Timestamp(microsecondsSince1970: 1), version: UInt64(reached.count), reached: reached)
    }

    @Test func addingFlowsCountsSessionsReachedStatesAndWhereTheyStopped() {
        var funnel = Funnel(machine: "onboarding")
        funnel.add(flow(["greeting"], reached: ["greeting", "initial"]))
        funnel.add(flow(["home"], reached: ["greeting", "home", "initial", "login"]))
        funnel.add(flow(["home"], reached: ["greeting", "home", "initial", "login"]))
        #expect(funnel.sessions == 3)
        #expect(funnel.reached == ["initial": 3, "greeting": 3, "login": 2, "home": 2])
        #expect(funnel.stoppedAt == ["greeting": 1, "home": 2])
        #expect(funnel.steps(along: ["initial", "login", "home"]).map(\.reached) == [3, 2, 2])
    }

    @Test func addingStacksBuildsTheDepthHistogram() {
        var statistics = StackDepthStatistics()
        statistics.add(ScreenStack(screens: ["all"]))
        statistics.add(ScreenStack(screens: ["all", "detail"]))
        statistics.add(ScreenStack(screens: ["all", "list", "detail"]))
        statistics.add(ScreenStack(screens: ["all", "detail"]))
        #expect(statistics.sessions == 4)
        #expect(statistics.histogram == [1: 1, 2: 2, 3: 1])
        #expect(statistics == StackDepthStatistics(histogram: [1: 1, 2: 2, 3: 1]))
        #expect(statistics.maximum == 3)
        #expect(statistics.mean == 2)
    }
}

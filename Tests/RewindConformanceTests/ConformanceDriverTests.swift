import Foundation
import RewindMachine
import Testing

@testable import RewindConformance

@Suite("Conformance driver")
struct ConformanceDriverTests {
    /// `Tests/ConformanceCases`, found relative to this file.
    private static let ownCases = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // RewindConformanceTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("ConformanceCases", isDirectory: true)

    private func driver(_ xml: String) throws -> ConformanceDriver {
        let definition = try MachineDefinition(scxml: Data(xml.utf8))
        return ConformanceDriver(machine: try Machine(definition, options: Machine.Options(unhandledEvents: .ignore)))
    }

    private func script(_ json: String) throws -> ConformanceCase.Script {
        try JSONDecoder().decode(ConformanceCase.Script.self, from: Data(json.utf8))
    }

    private static let timer = """
        <scxml xmlns="http://www.w3.org/2005/07/scxml" initial="waiting">
          <state id="waiting">
            <onentry><send id="t" event="timeout" delay="100ms"/><send event="ready"/></onentry>
            <transition event="ready" target="ready"/>
          </state>
          <state id="ready">
            <transition event="timeout" target="timedOut"/>
            <transition event="answer" target="answered"><cancel sendid="t"/></transition>
          </state>
          <state id="answered"><transition event="timeout" target="timedOut"/></state>
          <state id="timedOut"/>
        </scxml>
        """

    @Test func everyOwnCasePasses() throws {
        let cases = ConformanceCase.find(in: Self.ownCases)
        #expect(cases.count >= 9)
        #expect(
            Set(cases.map { $0.name.split(separator: "/").first.map(String.init) ?? "" })
                == ["cancel", "delayedSend", "executableContent", "ordering"])
        for testCase in cases {
            guard case .failed(let reason) = testCase.run() else { continue }
            Issue.record("\(testCase.name): \(reason)")
        }
    }

    @Test func undelayedSendsAreDeliveredAfterTheStepThatMadeThem() throws {
        // The machine's own <send> reaches "ready" before the first comparison.
        let outcome = try driver(Self.timer).run(script(#"{"initialConfiguration": ["ready"], "events": []}"#))
        guard case .passed = outcome else {
            Issue.record("\(outcome)")
            return
        }
    }

    @Test func afterMovesTheClockAndDeliversDueSendsOnTheWay() throws {
        let passing = try driver(Self.timer).run(
            script(
                """
                {"initialConfiguration": ["ready"], "events": [
                  {"after": 99, "nextConfiguration": ["ready"]},
                  {"after": 1, "nextConfiguration": ["timedOut"]}]}
                """))
        guard case .passed = passing else {
            Issue.record("\(passing)")
            return
        }
        // Without the wait the timeout has not fired: the driver reports the mismatch.
        let failing = try driver(Self.timer).run(
            script(
                """
                {"initialConfiguration": ["ready"], "events": [{"after": 50, "nextConfiguration": ["timedOut"]}]}
                """))
        guard case .failed(let reason) = failing else {
            Issue.record("expected a failure")
            return
        }
        #expect(reason.contains("expected [timedOut], got [ready]"))
    }

    @Test func cancelledSendsNeverArrive() throws {
        let outcome = try driver(Self.timer).run(
            script(
                """
                {"initialConfiguration": ["ready"], "events": [
                  {"after": 10, "event": {"name": "answer"}, "nextConfiguration": ["answered"]},
                  {"after": 1000, "nextConfiguration": ["answered"]}]}
                """))
        guard case .passed = outcome else {
            Issue.record("\(outcome)")
            return
        }
    }

    @Test func refusesANegativeWait() throws {
        let outcome = try driver(Self.timer).run(
            script(
                """
                {"initialConfiguration": ["ready"], "events": [{"after": -1, "nextConfiguration": ["ready"]}]}
                """))
        guard case .failed(let reason) = outcome else {
            Issue.record("expected a failure")
            return
        }
        #expect(reason.contains("negative"))
    }
}

import Foundation
import Testing

@testable import RewindMachine

/// Imported SCXML documents run on the interpreter: delayed sends on an injected clock, cancel,
/// `In()` guards, raised events and done events.
struct SCXMLExecutionTests {
    private func interpreter(_ scxml: String, clock: ManualClock) throws -> Interpreter {
        let definition = try MachineDefinition(scxml: Data(scxml.utf8))
        let machine = try Machine(definition, options: Machine.Options(unhandledEvents: .ignore))
        return Interpreter(machine: machine, clock: clock)
    }

    @Test func delayedSendFiresOnTheClockAndCancelStopsIt() throws {
        let clock = ManualClock()
        let interpreter = try self.interpreter(
            """
            <scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" initial="waiting">
              <state id="waiting">
                <onentry><send event="timeout" delay="1.5s" id="timer"/></onentry>
                <transition event="timeout" target="timedOut"/>
                <transition event="answer" target="answered"><cancel sendid="timer"/></transition>
              </state>
              <state id="timedOut"/>
              <state id="answered">
                <transition event="timeout" target="timedOut"/>
              </state>
            </scxml>
            """, clock: clock)
        try interpreter.start()
        clock.advance(by: .milliseconds(1_499))
        try interpreter.deliverDueSends()
        #expect(interpreter.state.configuration == ["waiting"])
        clock.advance(by: .milliseconds(1))
        try interpreter.deliverDueSends()
        #expect(interpreter.state.configuration == ["timedOut"])

        let second = try self.interpreter(
            """
            <scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" initial="waiting">
              <state id="waiting">
                <onentry><send event="timeout" delay="100ms" id="timer"/></onentry>
                <transition event="answer" target="answered"><cancel sendid="timer"/></transition>
              </state>
              <state id="answered"><transition event="timeout" target="waiting"/></state>
            </scxml>
            """, clock: clock)
        try second.start()
        try second.send("answer")
        clock.advance(by: .milliseconds(1_000))
        #expect(try second.deliverDueSends().isEmpty)
        #expect(second.state.configuration == ["answered"])
    }

    @Test func inGuardsRaiseAndDoneEventsRunAsInTheStandard() throws {
        let interpreter = try self.interpreter(
            """
            <scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" initial="p">
              <parallel id="p">
                <state id="left" initial="l1">
                  <state id="l1"><transition event="go" target="l2"><raise event="moved"/></transition></state>
                  <final id="l2"/>
                </state>
                <state id="right" initial="r1">
                  <state id="r1"><transition event="moved" cond="In('l2')" target="r2"/></state>
                  <final id="r2"/>
                </state>
                <transition event="done.state.p" target="end"/>
              </parallel>
              <final id="end"/>
            </scxml>
            """, clock: ManualClock())
        try interpreter.start()
        let step = try #require(try interpreter.send("go"))
        #expect(step.microsteps.map { $0.event?.name } == ["go", "moved", "done.state.p"])
        #expect(interpreter.state.configuration == ["end"])
        #expect(interpreter.state.isFinished)
    }
}

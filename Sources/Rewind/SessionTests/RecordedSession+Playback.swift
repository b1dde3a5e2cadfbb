import RewindMachine
import RewindStore

extension RecordedSession {
    /// Plays the session's recorded events with their payloads on `machine` (the app's machine,
    /// typically a newer definition than the one recorded) and checks, after each version, the
    /// active configuration, the data the step entered states with and the navigation stack.
    ///
    /// Each step goes through the engine's one evaluation entry point and navigation rules (as a
    /// live session and every replay do), from the state before it: the state the machine
    /// reached, or the state the session recorded after a version when it recorded one (a
    /// migration's, a redacted step's). A redacted step (``Step/redacted``) the machine does not
    /// reproduce is "redacted: cannot be re-checked" (``SessionPlayback/uncheckedRedactedVersions``),
    /// not a mismatch. Playback ends at the first version the machine does not reproduce.
    ///
    /// - Throws: ``RecordedSessionError`` for a step whose JSON text does not parse or does not
    ///   have its shape. A machine that departs from the recording is a result
    ///   (``SessionPlayback/mismatch``), not an error.
    public func play(on machine: Machine) throws(RecordedSessionError) -> SessionPlayback {
        let recording = StepRecording(
            machine: machine, machineName: self.machine, definition: machine.definition.contentVersion,
            coder: JSONPayloadCoder())
        let sessionID = (try? SessionID(id)) ?? SessionID("recorded-session")
        var state = MachineState()
        var stack = ScreenStack()
        var reproduced: [UInt64] = []
        var unchecked: [UInt64] = []
        for step in steps {
            let expected = try Expected(step, session: id)
            let request: StepRecording.Request
            do {
                // The request as every replay decodes it from its record.
                request = try recording.request(
                    of: TransitionRecord(
                        sequence: 0, session: sessionID, version: step.version, timestamp: time(of: step),
                        machine: self.machine, definition: recording.definition, event: step.event, source: [],
                        target: [],
                        navigation: [], payload: expected.payload.isNull ? [] : try expected.payload.jsonBytes(),
                        stateData: [], origin: nil))
            } catch {
                throw RecordedSessionError(
                    session: id, version: step.version,
                    reason: "its payload does not make a '\(step.event)' step: \(error)")
            }
            var next = state
            var nextStack = stack
            var differences: [PlaybackMismatch.Difference] = []
            do {
                let result = try recording.evaluate(request, in: &next, at: time(of: step))
                if case .migrate(let migration) = request {
                    nextStack = migration.navigation
                } else {
                    nextStack.apply(result.navigation, of: result.microsteps, to: &next)
                }
                if next.configuration != step.configuration {
                    differences.append(.configuration(recorded: step.configuration, computed: next.configuration))
                }
                let entered = JSONValue.object(StepRecording.enteredData(of: result.microsteps))
                if case .migrate = request {
                } else if entered != expected.stateData {
                    differences.append(
                        .stateData(recorded: Self.text(expected.stateData), computed: Self.text(entered)))
                }
                if nextStack.entries != expected.navigation.entries {
                    differences.append(
                        .navigation(
                            recorded: Self.text(expected.navigation), computed: Self.text(nextStack)))
                }
            } catch {
                differences.append(.rejected(String(describing: error)))
            }
            if !differences.isEmpty {
                guard step.redacted else {
                    return SessionPlayback(
                        session: id, reproducedVersions: reproduced, uncheckedRedactedVersions: unchecked,
                        mismatch: PlaybackMismatch(
                            session: id, version: step.version, event: step.event, differences: differences))
                }
                unchecked.append(step.version)
                guard let recorded = expected.state else {
                    return SessionPlayback(
                        session: id, reproducedVersions: reproduced, uncheckedRedactedVersions: unchecked,
                        stoppedAtRedaction: true, mismatch: nil)
                }
                state = recorded
                stack = expected.navigation
                continue
            }
            reproduced.append(step.version)
            // A step the session recorded its state after goes on from that state.
            state = expected.state ?? next
            stack = expected.state == nil ? nextStack : expected.navigation
        }
        return SessionPlayback(
            session: id, reproducedVersions: reproduced, uncheckedRedactedVersions: unchecked, mismatch: nil)
    }

    /// The time of `step` on the engine's clock.
    private func time(of step: Step) -> Timestamp {
        Timestamp(microsecondsSince1970: (startedAt &+ step.at) &* 1000)
    }

    /// A value's canonical JSON text (its description when it has none: a NaN cannot be recorded).
    static func text(_ value: JSONValue) -> String {
        (try? value.jsonBytes()).map { String(decoding: $0, as: UTF8.self) } ?? String(describing: value)
    }

    /// A stack's canonical JSON text: its entries, root first.
    static func text(_ stack: ScreenStack) -> String {
        text(.array(stack.entries.map(\.jsonValue)))
    }

    /// A step's JSON texts, parsed.
    private struct Expected {
        var payload: JSONValue
        var stateData: JSONValue
        var navigation: ScreenStack
        var state: MachineState?

        init(_ step: Step, session: String) throws(RecordedSessionError) {
            func parse(_ text: String, _ what: String) throws(RecordedSessionError) -> JSONValue {
                do {
                    return try JSONValue(jsonBytes: Array(text.utf8))
                } catch {
                    throw RecordedSessionError(
                        session: session, version: step.version, reason: "its \(what) is not JSON: \(error)")
                }
            }
            payload = try parse(step.payload, "payload")
            stateData = try parse(step.stateData, "state data")
            guard case .object = stateData else {
                throw RecordedSessionError(
                    session: session, version: step.version, reason: "its state data is not a JSON object by state id")
            }
            guard case .array(let entries) = try parse(step.navigation, "navigation stack") else {
                throw RecordedSessionError(
                    session: session, version: step.version,
                    reason: "its navigation stack is not a JSON array of entries")
            }
            do {
                navigation = ScreenStack(
                    entries: try entries.map { value throws(JSONShapeError) in
                        try NavigationEntry(jsonValue: value)
                    })
            } catch {
                throw RecordedSessionError(
                    session: session, version: step.version, reason: "its navigation stack: \(error)")
            }
            guard let stateText = step.recordedState else {
                state = nil
                return
            }
            let stateValue = try parse(stateText, "recorded state")
            do {
                state = try MachineState(jsonValue: stateValue)
            } catch {
                throw RecordedSessionError(
                    session: session, version: step.version, reason: "its recorded state: \(error)")
            }
        }
    }
}

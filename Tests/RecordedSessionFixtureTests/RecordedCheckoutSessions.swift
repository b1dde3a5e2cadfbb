// swift-format-ignore-file
// Regression tests from recorded sessions, written by `rewind session-test`. Each test plays one
// session's recorded events, with their payloads, on the app's machine and checks after every
// version the active configuration, the data the step entered states with and the navigation
// stack; a failure names the session and the version. Values are as the store recorded them
// (redacted by its policy); a step marked `redacted: true` that the machine does not reproduce
// from its redacted values is not re-checked (`SessionPlayback.uncheckedRedactedVersions`).
import Rewind
import RewindTestSupport
import Testing

struct RecordedCheckoutSessions {
    /// The app's machine, as the app makes it.
    func machine() throws -> Machine {
        try RecordedSessionFixture.machine()
    }

    /// Plays `session` on the app's machine; the first version it does not reproduce is an issue.
    func play(_ session: RecordedSession, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let playback = try session.play(on: try machine())
        if let mismatch = playback.mismatch { Issue.record("\(mismatch)", sourceLocation: sourceLocation) }
    }

    @Test("session order-1 (checkout, versions 1–6)")
    func sessionOrder1() throws {
        try play(RecordedSession(id: "order-1", machine: "checkout", startedAt: 1_767_225_601_500, steps: [
            .init(version: 1, event: "rewind.start", at: 0, payload: #"{"currency":"EUR"}"#,
                  configuration: ["cart"], stateData: #"{}"#,
                  navigation: #"[{"data":null,"screen":"cart"}]"#),
            .init(version: 2, event: "open", at: 1500, payload: #"{"price":12.5,"sku":"mug-1"}"#,
                  configuration: ["item"], stateData: #"{"item":{"price":12.5,"sku":"mug-1"}}"#,
                  navigation: #"[{"data":null,"screen":"cart"},{"data":{"price":12.5,"sku":"mug-1"},"screen":"item"}]"#),
            .init(version: 3, event: "add", at: 3000, payload: #"null"#,
                  configuration: ["cart"], stateData: #"{}"#,
                  navigation: #"[{"data":null,"screen":"cart"}]"#),
            .init(version: 4, event: "checkout", at: 4500, payload: #"null"#,
                  configuration: ["address"], stateData: #"{}"#,
                  navigation: #"[{"data":null,"screen":"cart"},{"data":null,"screen":"address"}]"#),
            .init(version: 5, event: "submit", at: 6000, payload: #"{"city":"London","postcode":"‹redacted›"}"#,
                  configuration: ["payment"], stateData: #"{"payment":{"city":"London","postcode":"‹redacted›"}}"#,
                  navigation: #"[{"data":null,"screen":"cart"},{"data":null,"screen":"address"},{"data":{"city":"London","postcode":"‹redacted›"},"screen":"payment"}]"#, redacted: true),
            .init(version: 6, event: "pay", at: 7500, payload: #"{"amount":12.5}"#,
                  configuration: ["done"], stateData: #"{"done":{"amount":12.5}}"#,
                  navigation: #"[{"data":{"amount":12.5},"screen":"done"}]"#, redacted: true),
        ]))
    }

    @Test("session order-2 (checkout, versions 1–5)")
    func sessionOrder2() throws {
        try play(RecordedSession(id: "order-2", machine: "checkout", startedAt: 1_767_225_610_500, steps: [
            .init(version: 1, event: "rewind.start", at: 0, payload: #"null"#,
                  configuration: ["cart"], stateData: #"{}"#,
                  navigation: #"[{"data":null,"screen":"cart"}]"#),
            .init(version: 2, event: "open", at: 1500, payload: #"{"price":4,"sku":"tea-7"}"#,
                  configuration: ["item"], stateData: #"{"item":{"price":4,"sku":"tea-7"}}"#,
                  navigation: #"[{"data":null,"screen":"cart"},{"data":{"price":4,"sku":"tea-7"},"screen":"item"}]"#),
            .init(version: 3, event: "back", at: 3000, payload: #"null"#,
                  configuration: ["cart"], stateData: #"{}"#,
                  navigation: #"[{"data":null,"screen":"cart"}]"#),
            .init(version: 4, event: "checkout", at: 4500, payload: #"null"#,
                  configuration: ["address"], stateData: #"{}"#,
                  navigation: #"[{"data":null,"screen":"cart"},{"data":null,"screen":"address"}]"#),
            .init(version: 5, event: "submit", at: 6000, payload: #"{"city":"Nowhere","postcode":"‹redacted›"}"#,
                  configuration: ["undeliverable"], stateData: #"{"undeliverable":{"city":"Nowhere","postcode":"‹redacted›"}}"#,
                  navigation: #"[{"data":null,"screen":"cart"},{"data":null,"screen":"address"},{"data":{"city":"Nowhere","postcode":"‹redacted›"},"screen":"undeliverable"}]"#,
                  recordedState: #"{"configuration":["undeliverable"],"context":null,"data":{"undeliverable":{"city":"Nowhere","postcode":"‹redacted›"}},"history":{},"internalQueue":[],"isFinished":false,"pendingSends":[]}"#, redacted: true),
        ]))
    }
}

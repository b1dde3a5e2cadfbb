import Foundation
import RewindTestSupport

@testable import Rewind

/// The sign-up machine of the redaction tests and the policy they configure.
///
/// form --submit [adult: payload.age ≥ 18, remember: context.email = payload.email, a `welcome`
/// send with the e-mail in its payload and a `reminder` an hour later]--> profile --welcome--> profile
/// (with the send's payload); profile --finish--> done (or `enter("done", data:)`). The guard reads a redacted value, the
/// action copies one into the context, the sends carry one.
enum SignupMachine {
    static func definition(version: Int = 1) -> MachineDefinition {
        MachineDefinition("signup") {
            StateNode("form") {
                On("submit", to: "profile", guard: .named("adult"), actions: [.custom("remember")])
                On("submit", to: "rejected")
            }
            StateNode("profile", validNextStates: ["done"]) {
                On("welcome", to: "profile")
                On("reminder", to: "profile")
                On("finish", to: "done")
            }
            StateNode("rejected")
            // Version 2 differs here only: its sessions resume through a `rewind.migrate` record.
            StateNode("done") { On("restart", to: version == 1 ? "done" : "form") }
        }
    }

    static let bindings = Bindings(
        guards: ["adult": { event, _ in (event.payload["age"]?.doubleValue ?? 0) >= 18 }],
        actions: [
            "remember": { scope in
                let email = scope.event?.payload["email"] ?? .null
                var context = scope.context
                if case .object(var members) = context {
                    members["email"] = email
                    context = .object(members)
                }
                scope.context = context
                scope.send(Event("welcome", payload: ["email": email]))
                scope.send(Event("reminder", payload: ["email": email]), after: .seconds(3600))
            }
        ])

    static func machine(version: Int = 1) throws -> Machine {
        try Machine(definition(version: version), bindings: bindings)
    }

    /// E-mails dropped wherever they are, the user id hashed, the age (read by the guard) marked.
    /// An event's payload is also the data of the state it enters: its fields are named under
    /// `data.*` too.
    static let policy: RedactionPolicy = [
        "signup": [
            .dropped("payload.email"), .dropped("data.*.email"), .marker("context.email"),
            .keyedHash("context.userID"), .keyedHash("payload.userID"), .keyedHash("data.*.userID"),
            .marker("payload.age"),
        ]
    ]

    /// Opens an engine on `fixture` with the sign-up machine and `policy`.
    static func open(
        _ fixture: EngineFixture, policy: RedactionPolicy = policy, machine: Machine? = nil
    ) throws -> Engine {
        try fixture.open(registering: [try machine ?? Self.machine()]) {
            $0.durability = .noSync
            $0.redaction = policy
        }
    }

    /// Every file under `directory` (recursively) that contains `marker`'s UTF-8 bytes.
    static func files(in directory: String, containing marker: String) throws -> [String] {
        let needle = Data(marker.utf8)
        var found: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let name = enumerator?.nextObject() as? String {
            let path = directory + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                continue
            }
            if try Data(contentsOf: URL(fileURLWithPath: path)).range(of: needle) != nil { found.append(name) }
        }
        return found
    }
}

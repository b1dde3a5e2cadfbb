// The interim demo (issue 2): opens (creating) a store, appends an onboarding flow for a new
// session and prints the session's records back. Later issues turn this into the real CLI.
//
//     swift run rewind [demo] [store-directory]      (default directory: ./rewind-store)
import Foundation
import Rewind

/// The greeting screen's state data in the demo.
struct Greeting: Codable {
    var name: String
}

/// The login event's payload in the demo.
struct Credentials: Codable {
    var user: String
}

func runDemo(arguments: [String]) throws {
    var arguments = arguments
    if arguments.first == "demo" { arguments.removeFirst() }
    let path = arguments.first ?? "./rewind-store"

    let store = try TransitionStore(directory: path)
    defer { store.close() }
    let coder = store.coder
    let session = try SessionID("onboarding-\(UUID().uuidString.prefix(8).lowercased())")
    let flow: [Transition] = [
        Transition(machine: "onboarding", definition: "demo-1", event: "launch",
                   source: [], target: ["initial"], navigation: [.setRoot("Splash")]),
        Transition(machine: "onboarding", definition: "demo-1", event: "start",
                   source: ["initial"], target: ["greeting"], navigation: [.replace("Greeting")],
                   stateData: try coder.encode(Greeting(name: "Ada"))),
        Transition(machine: "onboarding", definition: "demo-1", event: "continue",
                   source: ["greeting"], target: ["login"], navigation: [.push("Login")]),
        Transition(machine: "onboarding", definition: "demo-1", event: "loggedIn",
                   source: ["login"], target: ["home"], navigation: [.setRoot("Home")],
                   payload: try coder.encode(Credentials(user: "ada@example.com"))),
    ]
    let result = try store.append(flow, to: session, expectedVersion: .noStream)

    print("store \(store.path) (id \(store.storeID), format \(store.formatVersion))")
    print("appended \(session) v\(result.firstVersion)…v\(result.lastVersion) at sequences "
          + "\(result.firstSequence)…\(result.lastSequence); head sequence \(try store.headSequence())")
    for record in try store.records(of: session) {
        let source = record.source.isEmpty ? "∅" : record.source.joined(separator: ",")
        var line = "  #\(record.sequence) v\(record.version) \(record.timestamp) \(record.event): "
            + "\(source) → \(record.target.joined(separator: ",")) [\(record.navigation)]"
        if !record.payload.isEmpty { line += " payload \(String(decoding: record.payload, as: UTF8.self))" }
        if !record.stateData.isEmpty { line += " data \(String(decoding: record.stateData, as: UTF8.self))" }
        print(line)
    }
    let sessions = try store.sessions()
    print("\(sessions.count) session(s) in the store")
}

do {
    try runDemo(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("rewind: \(error)\n".utf8))
    exit(1)
}

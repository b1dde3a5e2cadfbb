import Foundation
import RewindStore

/// A fresh, empty directory under the temporary directory, removed by `remove()`.
struct TestDirectory {
    let path: String

    init(_ name: String = "store") throws {
        path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("rewind-\(name)-\(UUID().uuidString)", isDirectory: true).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The names of the files in the directory, sorted.
    func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Runs `body` with a new store in a fresh directory, closed and removed afterwards.
@discardableResult
func withStore<Result>(
    configuration: StoreConfiguration = StoreConfiguration(),
    _ body: (TransitionStore, TestDirectory) throws -> Result
) throws -> Result {
    let directory = try TestDirectory()
    defer { directory.remove() }
    let store = try TransitionStore(directory: directory.path, configuration: configuration)
    defer { store.close() }
    return try body(store, directory)
}

func session(_ id: String) throws -> SessionID { try SessionID(id) }

/// An onboarding-flow transition: `event` from `source` to `target`.
func step(
    _ event: String, from source: [String], to target: [String], navigation: [NavigationOperation] = [],
    payload: [UInt8] = [], stateData: [UInt8] = [], at micros: Int64 = 1_700_000_000_000_000
) -> TransitionDraft {
    TransitionDraft(
        timestamp: Timestamp(microsecondsSince1970: micros), machine: "onboarding",
        definition: "3f2a9c", event: event, source: source, target: target, navigation: navigation,
        payload: payload, stateData: stateData)
}

/// Three steps of the onboarding flow.
let onboarding: [TransitionDraft] = [
    step("start", from: [], to: ["greeting"], navigation: [.setRoot("Greeting")]),
    step("continue", from: ["greeting"], to: ["login"], navigation: [.push("Login")]),
    step("loggedIn", from: ["login"], to: ["home"], navigation: [.setRoot("Home")]),
]

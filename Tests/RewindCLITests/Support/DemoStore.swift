import Foundation
import RewindTestSupport

/// A temporary store filled by `rewind demo --sessions 30`, and the tool on it.
struct DemoStore: Sendable {
    /// The JSON summary `rewind demo --json` prints.
    struct Summary: Decodable, Sendable {
        var store: String
        var created: Bool
        var sessionsAdded: Int
        var transitionsAdded: Int
        var averageBatch: Double
        var totalSessions: Int
        var totalRecords: UInt64
    }

    /// The number of simulated users of each demo run: small, so the suite stays quick.
    static let sessions = 30

    /// The temporary directory holding the store (the store is its `store` subfolder, created by
    /// the demo).
    let directory: TemporaryDirectory
    /// The tool on the store.
    let tool: RewindTool
    /// What the demo reported.
    let summary: Summary

    /// Runs the demo on a new store under a new temporary directory.
    static func make(seed: UInt64 = 2026) async throws -> DemoStore {
        let directory = try TemporaryDirectory(prefix: "rewind-cli")
        do {
            let tool = try RewindTool(store: directory.url.appendingPathComponent("store").path)
            let summary = try await tool.json(
                Summary.self, ["demo", "--sessions", String(sessions), "--seed", String(seed)])
            return DemoStore(directory: directory, tool: tool, summary: summary)
        } catch {
            directory.remove()
            throw error
        }
    }

    /// A file path in the temporary directory (not created).
    func file(_ name: String) -> String {
        directory.url.appendingPathComponent(name).path
    }

    /// Removes the store and everything else in the temporary directory.
    func remove() {
        directory.remove()
    }
}

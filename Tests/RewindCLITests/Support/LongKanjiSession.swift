import Foundation
import Rewind
import RewindTestSupport

/// A store with one long Kanji session (all → detail → list → detail → …), written through the
/// engine: longer than the demo's sessions, so the replay's timeline has many cells.
enum LongKanjiSession {
    /// Writes session `id` with `versions` versions into the store in `directory`.
    static func write(id: String, versions: Int, into directory: String) async throws {
        let engine = try Engine(directory: directory, configuration: EngineConfiguration(durability: .noSync))
        defer { engine.close() }
        try engine.register(try ExampleMachines.Kanji.machine())
        let session = try await engine.startSession(id: id, machine: "kanji")
        for version in 2...max(2, versions) {
            if version % 2 == 0 {
                _ = try await session.enter(
                    "detail", data: ["character": "日", "meanings": ["day", .string("v\(version)")]])
            } else {
                _ = try await session.enter("list", data: ["word": .string("日本\(version)")])
            }
        }
    }
}

import Foundation
import Rewind
import RewindTestSupport
import Testing

/// The CLI shows what the app gave a session exactly: integers past 2^53, `UInt64.max` and long
/// decimals keep every digit in `state`, `history`, `replay` and `export`.
struct ExactValuesCommandTests {
    struct Account: Codable, Equatable {
        var id: Int64
        var limit: UInt64
        var balance: Decimal
    }

    static let account = Account(
        id: 1_234_567_890_123_456_789, limit: .max,
        balance: Decimal(string: "3.14159265358979323846264338327") ?? 0)
    static let digits = ["1234567890123456789", "18446744073709551615", "3.14159265358979323846264338327"]

    @Test func stateHistoryReplayAndExportKeepEveryDigit() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-cli-exact")
        defer { directory.remove() }
        let store = directory.url.appendingPathComponent("store").path
        do {
            let engine = try Engine(directory: store)
            defer { engine.close() }
            try engine.register(
                try Machine(
                    MachineDefinition("accounts") {
                        StateNode("list", navigation: .setRoot(), validNextStates: ["detail"])
                        StateNode("detail", navigation: .push(), validNextStates: ["list"]) { On("update") }
                    }))
            let session = try await engine.openSession(
                id: "exact", machine: "accounts", context: try JSONValue(encoding: Self.account))
            try await session.enter("detail", data: try JSONValue(encoding: Self.account))
            try await session.send("update", payload: try JSONValue(encoding: Self.account))
        }
        let tool = try RewindTool(store: store)
        for arguments in [
            ["state", "exact", "--json"], ["state", "exact", "--at", "2", "--json"], ["replay", "exact", "--json"],
            ["state", "exact"],
        ] {
            let output = try await tool.text(arguments)
            for digits in Self.digits {
                #expect(
                    output.contains(digits), "rewind \(arguments.joined(separator: " ")) lost \(digits):\n\(output)")
            }
        }
        let state = try await tool.json(JSONValue.self, ["state", "exact", "--json"])
        #expect(try state["context"]?.decode(Account.self) == Self.account)
        _ = try await tool.text(["export", "exact", "-o", directory.url.appendingPathComponent("exact.rewind").path])
        let archive = try Data(contentsOf: directory.url.appendingPathComponent("exact.rewind"))
        let importer = try EngineFixture()
        defer { importer.remove() }
        let engine = try importer.open(registering: [])
        defer { engine.close() }
        _ = try await engine.importSession(archive)
        var cursor = try engine.replayCursor(for: "exact")
        #expect(try cursor.seek(to: 3).payload.decode(Account.self) == Self.account)
    }
}

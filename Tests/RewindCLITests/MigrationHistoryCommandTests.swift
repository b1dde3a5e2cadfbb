import Foundation
import Rewind
import RewindTestSupport
import RewindWire
import Testing

/// `rewind history` and `rewind verify` on a session that moved to a changed definition: the move
/// is a `rewind.migrate` row, and the session verifies against the new definition from it.
struct MigrationHistoryCommandTests {
    /// A catalog and a cart, the cart renamed `basket` when `renamed`.
    static func shop(renamed: Bool) -> MachineDefinition {
        let cart = renamed ? "basket" : "cart"
        return MachineDefinition("shop") {
            StateNode("catalog", navigation: .setRoot()) { On("open", to: cart) }
            StateNode(cart, navigation: .push()) { On("back", to: "catalog", navigation: .pop) }
        }
    }

    @Test func historyShowsTheMigrationRecordAndVerifyStartsThere() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-cli-migration")
        defer { directory.remove() }
        let store = directory.url.appendingPathComponent("store").path
        do {
            let engine = try Engine(directory: store)
            defer { engine.close() }
            try engine.register(try Machine(Self.shop(renamed: false)))
            let session = try await engine.startSession(id: "user", machine: "shop")
            try await session.send("open")
        }
        do {
            let engine = try Engine(directory: store)
            defer { engine.close() }
            try engine.register(
                try Machine(Self.shop(renamed: true)),
                migrations: [DefinitionMigration("cart is basket", renaming: ["cart": "basket"])])
            let session = try engine.session("user")
            #expect(session.configuration == ["basket"])
            try await session.send("back")
        }
        let tool = try RewindTool(store: store)
        let history = try await tool.json([CommandOutputs.HistoryRow].self, ["history", "user"])
        #expect(history.map(\.event) == ["rewind.start", "open", "rewind.migrate", "back"])
        #expect(history[2].source == ["cart"])
        #expect(history[2].target == ["basket"])
        #expect(history[2].navigation == ["setRoot(catalog)", "push(basket)"])
        let text = try await tool.text(["history", "user", "--event", "rewind.migrate"])
        #expect(text.contains("cart → basket"))

        let definition = directory.url.appendingPathComponent("shop-v2.json")
        try Self.shop(renamed: true).jsonDocument().write(to: definition)
        let rows = try await tool.json(
            CommandOutputs.Verify.self, ["verify", "user", "--definition", definition.path]
        ).sessions
        #expect(rows.map(\.verifiedRecords) == [2])
        #expect(rows.map(\.divergence) == [nil])
    }
}

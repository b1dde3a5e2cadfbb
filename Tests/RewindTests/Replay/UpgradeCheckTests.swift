import Foundation
import Rewind
import RewindTestSupport
import Testing

/// The upgrade check: every stored session of a machine checked against a new definition before it
/// ships — resumes unchanged, after a migration, or not at all (what is missing named, exactly as
/// resuming would), and whether its recorded events re-run through the new definition reproduce
/// it. On a real store, with the shop of ``DefinitionUpgradeTests``.
struct UpgradeCheckTests {
    typealias Shop = DefinitionUpgradeTests

    /// The sessions recorded under the original shop, and the events each was sent.
    static let sessions: [(id: String, events: [String])] = [
        ("a", Shop.recordedEvents),  // ends in the cart, with checkout history
        ("b", ["open", "back"]),  // went through the cart, ends in the catalog
        ("c", ["checkout", "next"]),  // never saw the cart: ends in checkout's payment
    ]

    /// A store with the three sessions recorded under the original shop.
    func recordOriginal() async throws -> EngineFixture {
        let fixture = try EngineFixture(snapshotInterval: 4)
        let engine = try fixture.open(registering: [try Shop.machine()])
        defer { engine.close() }
        for (id, events) in Self.sessions {
            let session = try await engine.startSession(id: SessionID(id), machine: "shop")
            for event in events { try await session.send(event) }
        }
        return fixture
    }

    static let rename = DefinitionMigration("cart is basket", renaming: ["cart": "basket"])

    @Test func aRenamedStateMakesTheSessionInItIncompatibleAndTheSessionsThatPassedThroughItDiverge() async throws {
        let fixture = try await recordOriginal()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [])
        defer { engine.close() }
        let renamed = try Shop.machine(.renameActiveState)
        let report = try engine.upgradeCheck(of: "shop", against: renamed, label: "shop-v2")

        #expect(report.checkedSessions == 3)
        #expect(report.unchanged == 2 && report.migrated == 0 && report.incompatible == 1)
        #expect(report.diverging == 2)
        #expect(report.divergingEvents.map(\.event) == ["open"] && report.divergingEvents.map(\.sessions) == [2])
        #expect(report.definition == renamed.definition.contentVersion)
        #expect(!report.passes && !report.passes(allowingDivergence: true))
        #expect(
            report.description
                == "shop-v2: 3 sessions of shop — 2 unchanged, 0 migrated, 1 incompatible; 2 diverge, first at 'open' (2)"
        )

        let rows = Dictionary(uniqueKeysWithValues: report.sessions.map { ($0.session, $0) })
        let a = try #require(rows["a"])
        #expect(a.kind == .incompatible && !a.resumes)
        #expect(a.problems?.map(\.state) == ["cart", "cart"])
        #expect(a.problems?.map(\.problem) == ["missing", "missing"])
        // Version 2 is the first `open`: recorded into the cart, computed into the basket.
        #expect(a.divergence?.version == 2 && a.divergence?.event == "open")
        #expect(a.divergence?.recorded == ["cart"] && a.divergence?.computed == ["basket"])
        #expect(rows["b"]?.kind == .diverging && rows["b"]?.resumes == true && rows["b"]?.divergence?.version == 2)
        #expect(rows["c"]?.kind == .unchanged && rows["c"]?.divergence == nil && rows["c"]?.verifiedRecords == 3)

        // The problems are those resuming under the new definition throws.
        let check = try engine.upgradeCheck(SessionID("a"), against: renamed)
        guard case .incompatible(let problems) = check.resume else {
            Issue.record("session a should be incompatible: \(check.resume)")
            return
        }
        let resuming = try fixture.open(registering: [renamed])
        defer { resuming.close() }
        #expect(
            throws: EngineError.incompatibleDefinition(
                session: "a", machine: "shop", recorded: check.recordedDefinition,
                registered: renamed.definition.contentVersion, problems: problems)
        ) {
            try resuming.session("a")
        }
        // Nothing was written by the check.
        #expect(try engine.store.sessionInfo(for: "a")?.headVersion == 7)
    }

    @Test func aMigrationThatRenamesTheStateMakesTheSessionMigratedAsResumingDoes() async throws {
        let fixture = try await recordOriginal()
        defer { fixture.remove() }
        let renamed = try Shop.machine(.renameActiveState)
        let unused = DefinitionMigration("drop wishlist", renaming: ["wishlist": "favourites"])
        // The app's build: the new definition registered with its migrations.
        let engine = try fixture.open(registering: [])
        defer { engine.close() }
        try engine.register(renamed, migrations: [Self.rename, unused])
        let report = try engine.upgradeCheck(of: "shop")

        #expect(report.checkedSessions == 3)
        #expect(report.unchanged == 2 && report.migrated == 1 && report.incompatible == 0)
        let rows = Dictionary(uniqueKeysWithValues: report.sessions.map { ($0.session, $0) })
        let a = try #require(rows["a"])
        // Migrated by the rename alone (the other migration applies but changes nothing), and its
        // events still diverge at the first `open`.
        #expect(a.resumes && a.migrations == ["cart is basket"])
        // The rename map the migration record would carry: every applied migration's renames.
        #expect(a.renamed == ["cart": "basket", "wishlist": "favourites"])
        #expect(a.kind == .diverging && a.divergence?.event == "open")
        #expect(rows["b"]?.migrations == nil && rows["b"]?.kind == .diverging)
        #expect(rows["c"]?.kind == .unchanged)
        #expect(!report.passes && report.passes(allowingDivergence: true))

        // Resuming does what the check said: the session continues in the basket.
        let session = try engine.session("a")
        #expect(session.configuration == ["basket"])
        #expect(session.navigationStack.screens == ["catalog", "basket"])
    }

    @Test func aCompatibleChangeOrTheSameDefinitionPasses() async throws {
        let fixture = try await recordOriginal()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Shop.machine()])
        defer { engine.close() }
        for machine in [try Shop.machine(), try Shop.machine(.addState), try Shop.machine(.addTransition)] {
            let report = try engine.upgradeCheck(of: "shop", against: machine)
            #expect(report.checkedSessions == 3 && report.unchanged == 3 && report.diverging == 0, "\(report)")
            #expect(report.passes)
            #expect(report.sessions.map(\.kind) == [.unchanged, .unchanged, .unchanged])
            #expect(report.sessions.map(\.verifiedRecords) == [7, 3, 3])
        }
        // A machine with no sessions: an empty report that passes.
        let none = try engine.upgradeCheck(of: "checkout", against: try Shop.machine())
        #expect(none.checkedSessions == 0 && none.passes && none.sessions.isEmpty)
    }

    @Test func aMovedStateAndAFailingMigrationAreNamed() async throws {
        let fixture = try await recordOriginal()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [])
        defer { engine.close() }
        let moved = try engine.upgradeCheck(of: "shop", against: try Shop.machine(.moveIntoCompound))
        let a = try #require(moved.sessions.first { $0.session == "a" })
        #expect(a.kind == .incompatible)
        #expect(a.problems?.map(\.description) == ["active state 'cart' moved from the top level to shopping"])

        struct Refused: Error {}
        let failing = DefinitionMigration("refuses") { _ in throw Refused() }
        let report = try engine.upgradeCheck(of: "shop", against: try Shop.machine(.addState), migrations: [failing])
        #expect(report.migrationFailed == 3 && !report.passes)
        #expect(report.sessions.allSatisfy { $0.kind == .migrationFailed && $0.migrations == ["refuses"] })
        #expect(report.description.contains("3 migration failed"))
    }

    @Test func aSessionWhoseRecordsCannotBeReRunIsListedUnreadableAndTheCheckGoesOn() async throws {
        let fixture = try await recordOriginal()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [])
        defer { engine.close() }
        // The stored original definition is gone: the records after the latest snapshot are re-run
        // with the new definition, which does not reach the recorded cart.
        let original = try Shop.machine()
        _ = try engine.writableStore.write { transaction in
            try transaction.delete(
                Engine.definitionKey(name: "shop", version: original.definition.contentVersion), in: .definitions)
        }
        let report = try engine.upgradeCheck(of: "shop", against: try Shop.machine(.renameActiveState))
        #expect(report.checkedSessions == 3)
        #expect(report.unreadable >= 1 && !report.passes)
        let a = try #require(report.sessions.first { $0.session == "a" })
        #expect(a.kind == .unreadable)
        #expect(a.error?.contains("cart") == true, "\(a)")
        #expect(report.sessions.contains { $0.session == "c" && $0.kind == .unchanged })
    }

    @Test func anUnregisteredMachineIsATypedError() async throws {
        let fixture = try await recordOriginal()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [])
        defer { engine.close() }
        #expect(throws: EngineError.unknownMachine("shop")) { try engine.upgradeCheck(of: "shop") }
        engine.close()
        #expect(throws: EngineError.closed) { try engine.upgradeCheck(of: "shop", against: try Shop.machine()) }
    }
}

import Foundation
import Rewind
import RewindTestSupport
import Testing

/// App updates don't strand sessions: a session recorded under one definition of its machine
/// resumes under a changed one from its latest state (``ResumePolicy/upgradeWhenCompatible``, the
/// default) when that state means the same there, gets a typed error naming what is missing when
/// it does not, and moves forward with a declared ``DefinitionMigration``. The move is a
/// `rewind.migrate` record, so replay, verify, history, export/import and forks show it.
struct DefinitionUpgradeTests {
    /// How the shop's definition changes between the recording and the resume.
    enum Change: String, CaseIterable, CustomStringConvertible, Sendable {
        case none, addState, addTransition, removeUnrelatedState, changeGuard
        case renameActiveState, moveIntoCompound, removeHistoryWithMemory

        var description: String { rawValue }
    }

    /// The guards every shop definition is compiled with.
    static let bindings = Bindings(guards: ["allowed": { _, _ in true }, "closed": { _, _ in false }])

    /// A catalog, a cart, a checkout with shallow history and a help screen; `change` applied.
    static func shop(_ change: Change = .none) -> MachineDefinition {
        let cart = change == .renameActiveState ? "basket" : "cart"
        let cartNode = StateNode(cart, navigation: .push()) {
            On("back", to: "catalog", navigation: .pop)
            if change == .addTransition { On("save", to: "catalog", navigation: .pop) }
        }
        return MachineDefinition("shop") {
            StateNode("catalog", navigation: .setRoot()) {
                On("open", to: cart)
                On("checkout", to: "checkout", guard: .named(change == .changeGuard ? "closed" : "allowed"))
                if change != .removeHistoryWithMemory { On("resume", to: "checkout.history") }
                if change != .removeUnrelatedState { On("help", to: "help") }
                if change == .addState { On("wish", to: "wishlist") }
            }
            if change == .moveIntoCompound {
                StateNode("shopping") { cartNode }
            } else {
                cartNode
            }
            StateNode("checkout", initial: "address", navigation: .push()) {
                if change != .removeHistoryWithMemory { HistoryNode("checkout.history") }
                StateNode("address") { On("next", to: "payment") }
                StateNode("payment") { On("edit", to: "address") }
                On("leave", to: "catalog", navigation: .pop)
            }
            if change != .removeUnrelatedState {
                StateNode("help") { On("close", to: "catalog") }
            }
            if change == .addState {
                StateNode("wishlist") { On("close", to: "catalog") }
            }
        }
    }

    static func machine(_ change: Change = .none) throws -> Machine {
        try Machine(shop(change), bindings: bindings)
    }

    /// The events recorded under the original definition: through the checkout (whose history
    /// then remembers `payment`) and back to the cart. Seven versions with the start.
    static let recordedEvents = ["open", "back", "checkout", "next", "leave", "open"]

    /// One row of the table: a change, and what resuming under it does.
    struct Row: CustomStringConvertible, Sendable {
        var change: Change
        var migrations: [DefinitionMigration] = []
        /// The configuration resumed in, or `nil` when resuming must fail.
        var resumesIn: [String]?
        /// The navigation screens resumed with.
        var screens: [String] = ["catalog", "cart"]
        /// The problems the failure names.
        var problems: [DefinitionIncompatibility] = []
        /// Events sent after resuming, and the configuration they reach.
        var after: [String] = []
        var reaches: [String] = []
        /// The rename map the migration record carries.
        var renamed: [String: String] = [:]

        var description: String { "\(change)\(migrations.isEmpty ? "" : " with a migration")" }
    }

    static let rows: [Row] = [
        Row(change: .addState, resumesIn: ["cart"], after: ["back", "wish"], reaches: ["wishlist"]),
        Row(change: .addTransition, resumesIn: ["cart"], after: ["save"], reaches: ["catalog"]),
        Row(
            change: .removeUnrelatedState, resumesIn: ["cart"], after: ["back", "resume"],
            reaches: ["checkout", "payment"]),
        Row(change: .changeGuard, resumesIn: ["cart"], after: ["back"], reaches: ["catalog"]),
        Row(
            change: .renameActiveState,
            problems: [
                DefinitionIncompatibility(state: "cart", role: .active, problem: .missing(formerPath: [])),
                DefinitionIncompatibility(state: "cart", role: .screen, problem: .missing(formerPath: [])),
            ]),
        Row(
            change: .renameActiveState,
            migrations: [DefinitionMigration("cart is basket", renaming: ["cart": "basket"])],
            resumesIn: ["basket"], screens: ["catalog", "basket"], after: ["back", "open"], reaches: ["basket"],
            renamed: ["cart": "basket"]),
        Row(
            change: .moveIntoCompound,
            problems: [
                DefinitionIncompatibility(state: "cart", role: .active, problem: .moved(from: [], to: ["shopping"]))
            ]),
        Row(
            change: .removeHistoryWithMemory,
            problems: [
                DefinitionIncompatibility(
                    state: "checkout.history", role: .history, problem: .missing(formerPath: ["checkout"]))
            ]),
    ]

    /// Records the shop session under the original definition; returns the fixture and the live
    /// snapshot at every version.
    func recordOriginal() async throws -> (EngineFixture, [UInt64: SessionSnapshot]) {
        let fixture = try EngineFixture(snapshotInterval: 4)
        let engine = try fixture.open(registering: [try Self.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "user", machine: "shop")
        var live = [session.version: session.snapshot]
        for event in Self.recordedEvents {
            try await session.send(event)
            live[session.version] = session.snapshot
        }
        #expect(session.state.history == ["checkout.history": ["payment"]])
        return (fixture, live)
    }

    /// Opens an engine on `fixture` registering the shop changed by `change`.
    func open(_ fixture: EngineFixture, _ change: Change, migrations: [DefinitionMigration] = []) throws -> Engine {
        let engine = try fixture.open(registering: [])
        try engine.register(try Self.machine(change), migrations: migrations)
        return engine
    }

    /// Every replay path at every version shows the live state there, and `verify` against
    /// `machine` is clean from `firstVersion`.
    func expectReplays(
        _ engine: Engine, live: [UInt64: SessionSnapshot], head: UInt64, against machine: Machine,
        from firstVersion: UInt64, _ row: Row
    ) throws {
        var seeking = try engine.replayCursor(for: "user", bindings: Self.bindings)
        var stepping = try engine.replayCursor(for: "user", bindings: Self.bindings)
        let player = try engine.player(for: "user", bindings: Self.bindings)
        for version in 1...head {
            let expected = try #require(live[version], "\(row): live state at \(version)")
            let point = try seeking.seek(to: version)
            #expect(point.state == expected.state, "\(row): seeking to \(version)")
            #expect(point.navigation == expected.navigation, "\(row): seeking to \(version)")
            #expect(try stepping.stepForward()?.state == expected.state, "\(row): stepping to \(version)")
            try player.play(through: version)
            #expect(player.snapshot == expected, "\(row): playing through \(version)")
        }
        let report = try engine.verify(SessionID("user"), against: machine)
        #expect(report.isClean, "\(row): \(report)")
        #expect(report.firstVersion == firstVersion, "\(row)")
        #expect(report.verifiedRecords == head - firstVersion + 1, "\(row)")
    }

    @Test(arguments: rows)
    func aChangedDefinitionResumesOrNamesWhatIsMissing(_ row: Row) async throws {
        let (fixture, recorded) = try await recordOriginal()
        defer { fixture.remove() }
        var live = recorded
        let engine = try open(fixture, row.change, migrations: row.migrations)
        defer { engine.close() }
        let changed = try Self.machine(row.change)
        guard let configuration = row.resumesIn else {
            // Refused with the problems named; nothing written; replay and verify against the
            // definition the session was recorded under still show every version.
            #expect(
                throws: EngineError.incompatibleDefinition(
                    session: SessionID("user"), machine: "shop", recorded: recorded[7]?.definition ?? "",
                    registered: changed.definition.contentVersion, problems: row.problems)
            ) {
                try engine.session("user")
            }
            #expect(throws: EngineError.self) { try engine.session("user", policy: .strict) }
            #expect(try engine.store.sessionInfo(for: SessionID("user"))?.headVersion == 7)
            try expectReplays(engine, live: live, head: 7, against: try Self.machine(), from: 1, row)
            return
        }
        let session = try engine.session("user")
        // Resumed from the latest state, under the new definition; nothing written yet.
        #expect(session.configuration == configuration, "\(row)")
        #expect(session.navigationStack.screens == row.screens, "\(row)")
        #expect(session.state.history == ["checkout.history": ["payment"]], "\(row)")
        #expect(session.snapshot.definition == changed.definition.contentVersion)
        #expect(session.version == 7)
        #expect(try engine.store.sessionInfo(for: session.id)?.headVersion == 7)
        // A guard changed so that the old records no longer pass still resumes: it continued from
        // the latest state, it did not re-run them (a replay migration cannot).
        if row.change == .changeGuard {
            #expect(
                throws: EngineError.replayFailed(
                    session: session.id, version: 4, event: "checkout",
                    cause: ErrorCause(MachineError.invalidTransition(from: ["catalog"], event: "checkout")))
            ) {
                try engine.session("user", policy: .replayWithRegistered)
            }
        }
        var migrated = session.snapshot
        for event in row.after {
            try await session.send(event)
            live[session.version] = session.snapshot
        }
        #expect(session.configuration == row.reaches, "\(row)")
        let head = session.version
        #expect(head == 8 + UInt64(row.after.count))

        // The migration record: version 8, before the first event under the new definition.
        let record = try #require(try engine.store.records(of: session.id, versions: 8...8).first)
        #expect(record.event == StepRecording.migrateEvent)
        #expect(record.definition == changed.definition.contentVersion)
        #expect(record.source == ["cart"])
        #expect(record.target == configuration)
        // Its navigation operations turn the recorded stack into the migrated one, for readers
        // that fold operations (the navigation projection).
        var stack = try #require(recorded[7]).navigation
        stack.apply(record.navigation)
        #expect(stack == migrated.navigation, "\(row)")
        #expect(record.navigation.isEmpty == (row.renamed.isEmpty), "\(row)")
        var cursor = try engine.replayCursor(for: session.id, bindings: Self.bindings)
        let point = try cursor.seek(to: 8)
        #expect(point.event == StepRecording.migrateEvent)
        let migration = try RecordedMigration(payload: point.payload)
        #expect(migration.from == recorded[7]?.definition)
        #expect(migration.to == changed.definition.contentVersion)
        #expect(migration.renamed == row.renamed)
        #expect(migration.migrations == row.migrations.map(\.name))
        migrated.version = 8
        migrated.timestamp = record.timestamp
        live[8] = migrated
        #expect(
            try engine.history(of: session.id, filter: HistoryFilter(events: [StepRecording.migrateEvent]))
                .map(\.version) == [8])

        // A change guarded by a new condition that the old records do not meet still resumes: it
        // continued from the latest state, it did not re-run them (a replay migration cannot).

        // Another engine resumes the session strictly now (its head names the new definition),
        // and replays and verifies across the change.
        let reopened = try open(fixture, row.change, migrations: row.migrations)
        defer { reopened.close() }
        #expect(try reopened.session("user", policy: .strict).snapshot == session.snapshot)
        try expectReplays(reopened, live: live, head: head, against: changed, from: 8, row)
    }

    /// The records after the latest snapshot are re-run with the definition they were written
    /// under; when it names a guard the app no longer binds, with the registered definition
    /// (still checked to reach every recorded target).
    @Test func recordsOfADefinitionWhoseGuardsAreGoneAreReRunWithTheRegisteredOne() async throws {
        let fixture = try EngineFixture(snapshotInterval: 0)  // no snapshot: every record re-runs
        defer { fixture.remove() }
        do {
            let engine = try fixture.open(registering: [try Self.machine()])
            defer { engine.close() }
            let session = try await engine.startSession(id: "user", machine: "shop")
            for event in Self.recordedEvents { try await session.send(event) }
        }
        // The new checkout guard is a condition on the state, with no named guard to bind.
        var definition = Self.shop(.addState)
        definition.states[0].transitions[1].condition = .inState("catalog")
        let engine = try fixture.open(registering: [try Machine(definition)])
        defer { engine.close() }
        let session = try engine.session("user")
        #expect(session.configuration == ["cart"])
        #expect(session.state.history == ["checkout.history": ["payment"]])
        try await session.send("back")
        try await session.send("wish")
        #expect(session.configuration == ["wishlist"])
    }

    /// Changes to an editor with parallel regions and history, resumed in the regions or in the
    /// settings (where the history remembers the regions).
    enum EditorChange: String, CaseIterable, CustomStringConvertible, Sendable {
        case none, addRegion, deepHistory, moveRemembered, settingsBecomesCompound

        var description: String { rawValue }

        var definition: MachineDefinition {
            let work = ParallelNode("work") {
                StateNode("text", initial: "draft") {
                    StateNode("draft") { On("type", to: "typing") }
                    StateNode("typing")
                }
                StateNode("panel", initial: "closed") {
                    StateNode("closed")
                    StateNode("open")
                }
                if self == .addRegion { StateNode("status") { StateNode("idle") } }
                On("away", to: "settings")
            }
            return MachineDefinition("editor") {
                StateNode("app", initial: self == .moveRemembered ? "home" : "work") {
                    HistoryNode("app.history", self == .deepHistory ? .deep : .shallow)
                    if self == .moveRemembered { StateNode("home") } else { work }
                }
                StateNode("settings") {
                    On("return", to: "app.history")
                    if self == .settingsBecomesCompound {
                        StateNode("general")
                        StateNode("privacy")
                    }
                }
                if self == .moveRemembered { work }
            }
        }
    }

    @Test(arguments: [
        (
            EditorChange.addRegion, false,
            [
                DefinitionIncompatibility(state: "status", role: .active, problem: .notEntered(parallel: "work"))
            ]
        ),
        (EditorChange.addRegion, true, []),
        (
            EditorChange.deepHistory, true,
            [
                DefinitionIncompatibility(
                    state: "app.history", role: .history,
                    problem: .changedKind(from: "history(shallow)", to: "history(deep)"))
            ]
        ),
        (
            EditorChange.moveRemembered, true,
            [
                DefinitionIncompatibility(
                    state: "work", role: .remembered(by: "app.history"), problem: .moved(from: ["app"], to: []))
            ]
        ),
        (
            EditorChange.settingsBecomesCompound, true,
            [
                DefinitionIncompatibility(
                    state: "settings", role: .active, problem: .changedKind(from: "atomic", to: "compound"))
            ]
        ),
    ])
    func regionsHistoryAndKindsAreChecked(
        _ change: EditorChange, inSettings: Bool, problems: [DefinitionIncompatibility]
    ) async throws {
        let fixture = try EngineFixture(snapshotInterval: 2)
        defer { fixture.remove() }
        do {
            let engine = try fixture.open(registering: [try Machine(EditorChange.none.definition)])
            defer { engine.close() }
            let session = try await engine.startSession(id: "user", machine: "editor")
            try await session.send("type")
            if inSettings {
                try await session.send("away")
                #expect(session.state.history == ["app.history": ["work"]])
            }
        }
        let changed = try Machine(change.definition)
        let engine = try fixture.open(registering: [changed])
        defer { engine.close() }
        guard problems.isEmpty else {
            do {
                _ = try engine.session("user")
                Issue.record("\(change): the resume should have been refused")
            } catch let EngineError.incompatibleDefinition(_, _, _, registered, found) {
                #expect(registered == changed.definition.contentVersion)
                #expect(found == problems, "\(change)")
            }
            return
        }
        // Compatible: the history restores the regions, the added one entered by default.
        let session = try engine.session("user")
        try await session.send("return")
        #expect(session.configuration == ["app", "work", "text", "draft", "panel", "closed", "status", "idle"])
    }

    @Test func appsCannotSendTheMigrationEventName() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Self.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "user", machine: "shop")
        await #expect(throws: EngineError.reservedEventName(StepRecording.migrateEvent)) {
            try await session.send(StepRecording.migrateEvent)
        }
        await #expect(throws: EngineError.reservedEventName(StepRecording.migrateEvent)) {
            try await session.send(contentsOf: [Event("open"), Event(StepRecording.migrateEvent)])
        }
        #expect(session.version == 1)
        #expect(try engine.store.sessionInfo(for: session.id)?.headVersion == 1)
    }

    @Test func aTransformMovesASessionIntoANewCompoundAndOnlyMigrationsFromItsDefinitionApply() async throws {
        let (fixture, recorded) = try await recordOriginal()
        defer { fixture.remove() }
        let original = try #require(recorded[7]?.definition)
        let intoShopping = DefinitionMigration("into shopping", from: original) { snapshot in
            snapshot.state.configuration.insert("shopping", at: 0)
        }
        // A migration from another definition does not apply: the move is refused.
        do {
            let engine = try open(
                fixture, .moveIntoCompound,
                migrations: [
                    DefinitionMigration("from elsewhere", from: "0123") {
                        $0.state.configuration.insert("shopping", at: 0)
                    }
                ])
            defer { engine.close() }
            #expect(throws: EngineError.self) { try engine.session("user") }
        }
        // A transform that throws stops the resume, naming the migration.
        do {
            struct Refused: Error {}
            let engine = try open(
                fixture, .moveIntoCompound,
                migrations: [
                    DefinitionMigration("refuses") { _ in throw Refused() }
                ])
            defer { engine.close() }
            #expect(
                throws: EngineError.migrationFailed(
                    session: SessionID("user"), migration: "refuses", cause: ErrorCause(Refused()))
            ) {
                try engine.session("user")
            }
        }
        // A transform that leaves a state outside the definition is refused too.
        do {
            let engine = try open(
                fixture, .moveIntoCompound,
                migrations: [
                    DefinitionMigration("wrong place") { $0.state.configuration.insert("nowhere", at: 0) }
                ])
            defer { engine.close() }
            #expect(
                throws: EngineError.incompatibleDefinition(
                    session: SessionID("user"), machine: "shop", recorded: original,
                    registered: try Self.machine(.moveIntoCompound).definition.contentVersion,
                    problems: [
                        DefinitionIncompatibility(
                            state: "cart", role: .active, problem: .moved(from: nil, to: ["shopping"])),
                        DefinitionIncompatibility(state: "nowhere", role: .active, problem: .missing(formerPath: nil)),
                    ])
            ) {
                try engine.session("user")
            }
        }
        let engine = try open(fixture, .moveIntoCompound, migrations: [intoShopping])
        defer { engine.close() }
        #expect(try engine.store.sessionInfo(for: SessionID("user"))?.headVersion == 7)
        let session = try engine.session("user")
        #expect(session.configuration == ["shopping", "cart"])
        try await session.send("back")
        #expect(session.configuration == ["catalog"])
        var cursor = try engine.replayCursor(for: session.id, bindings: Self.bindings)
        let point = try cursor.seek(to: 8)
        #expect(point.configuration == ["shopping", "cart"])
        #expect(try RecordedMigration(payload: point.payload).migrations == ["into shopping"])
    }

    @Test func aReloadBeforeTheFirstRecordMovesAgainAndAnIgnoredEventWritesNothing() async throws {
        let (fixture, _) = try await recordOriginal()
        defer { fixture.remove() }
        let engine = try open(fixture, .addState)
        defer { engine.close() }
        let session = try engine.session("user")
        try await session.reload()
        #expect(session.configuration == ["cart"])
        #expect(session.version == 7)
        try await session.send("back")
        #expect(try engine.store.records(of: session.id).map(\.event).suffix(2) == ["rewind.migrate", "back"])
        try await session.reload()
        #expect(session.version == 9)
    }

    @Test func anUpgradedSessionExportsImportsAndForksAcrossItsMigrationRecord() async throws {
        let (fixture, recorded) = try await recordOriginal()
        defer { fixture.remove() }
        let row = Self.rows[5]  // the rename with a map
        let engine = try open(fixture, row.change, migrations: row.migrations)
        defer { engine.close() }
        let session = try engine.session("user")
        var migrated = session.snapshot
        try await session.send("back")
        let migration = try #require(try engine.store.records(of: session.id, versions: 8...8).first)
        migrated.version = 8
        migrated.timestamp = migration.timestamp
        var live = recorded
        live[8] = migrated
        live[9] = session.snapshot

        // Export → import into a fresh store (snapshots computed at import, every 2 versions).
        let archive = try engine.exportSession(session.id)
        let other = try EngineFixture(snapshotInterval: 2)
        defer { other.remove() }
        let importer = try open(other, row.change)
        defer { importer.close() }
        try await importer.importSession(archive)
        #expect(try importer.session("user", policy: .strict).snapshot == session.snapshot)
        var cursor = try importer.replayCursor(for: "user", bindings: Self.bindings)
        for version in 1...UInt64(9) {
            #expect(try cursor.seek(to: version).state == live[version]?.state, "imported, at \(version)")
        }
        // Forks at the migration record and before it.
        try await engine.fork(session.id, at: 8, as: SessionID("fork-at-migration"))
        #expect(try engine.session("fork-at-migration", policy: .strict).snapshot == migrated)
        try await engine.fork(session.id, at: 7, as: SessionID("fork-before"))
        let before = try engine.session("fork-before")
        #expect(before.configuration == ["basket"])
        try await before.send("back")
        #expect(try engine.store.records(of: before.id).map(\.event).suffix(2) == ["rewind.migrate", "back"])
    }

    /// A log as main at e1a963d wrote it for a `.replayWithRegistered` migration: records under
    /// the new definition follow those under the old one with no `rewind.migrate` record. It
    /// resumes and replays as it did: the state after the change is every record re-run through
    /// the new definition.
    @Test func aLogWithoutMigrationRecordsResumesAndReplaysAsBefore() async throws {
        func counter(adding amount: Double) throws -> Machine {
            let add: CustomAction = { scope in
                scope.context["count"] = try JSONValue(encoding: (scope.context["count"]?.doubleValue ?? 0) + amount)
            }
            let action = "add \(amount)"  // another action: another definition
            return try Machine(
                MachineDefinition("counter") { StateNode("counting") { On("tap", actions: [.custom(action)]) } },
                bindings: Bindings(actions: [action: add]))
        }
        let fixture = try EngineFixture(snapshotInterval: 2)
        defer { fixture.remove() }
        let old = try counter(adding: 1)
        let new = try counter(adding: 10)
        do {
            let engine = try fixture.open(registering: [old])
            defer { engine.close() }
            let session = try await engine.startSession(id: "user", machine: "counter")
            for _ in 1...3 { try await session.send("tap") }
            #expect(session.state.context["count"] == 3)
            // The record the old migration appended: a tap under the new definition, no more.
            try engine.writableStore.append(
                [
                    TransitionDraft(
                        machine: "counter", definition: new.definition.contentVersion, event: "tap",
                        source: ["counting"], target: ["counting"])
                ],
                to: session.id, expectedVersion: .exact(4))
        }
        let engine = try fixture.open(registering: [new])
        defer { engine.close() }
        // Resumed: every tap re-run through the new definition: 40.
        let session = try engine.session("user", policy: .strict)
        #expect(session.version == 5)
        #expect(session.state.context["count"] == 40)
        var cursor = try engine.replayCursor(for: "user", bindings: old.bindings)
        #expect(try cursor.seek(to: 4).context["count"] == 3)
        #expect(try cursor.seek(to: 5).context["count"] == 40)
        let report = try engine.verify(session.id, against: new)
        #expect(report.isClean)
        #expect(report.firstVersion == 1)
        #expect(report.verifiedRecords == 5)
    }
}

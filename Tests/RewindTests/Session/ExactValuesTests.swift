import Foundation
import PropertyBased
import Rewind
import RewindTestSupport
import Testing

/// What an app gives a session — payloads, state data, context — comes back exactly: live, after a
/// restart (from snapshots and records), in replay, and through a session archive.
@Suite("Exact values through the engine")
struct ExactValuesTests {
    /// A model with the values that a `Double` would change or refuse.
    struct Account: Codable, Equatable, Sendable {
        var id: Int64
        var limit: UInt64
        var balance: Decimal
        var rate: Double
        var owner: String
    }

    static let boundary = [
        Account(
            id: 1_234_567_890_123_456_789, limit: .max,
            balance: Decimal(string: "3.14159265358979323846264338327") ?? 0,
            rate: 0.1, owner: "Zoë 👩‍👩‍👧 \u{0}\u{2028}"),
        Account(
            id: .min, limit: UInt64(Int64.max) + 1,
            balance: Decimal(string: "-0.000000000000000000000000000000000000012345") ?? 0,
            rate: -0.0, owner: "e\u{301}"),
        Account(
            id: .max, limit: (1 << 53) + 1, balance: Decimal(string: "99999999999999999999999999999999999999") ?? 0,
            rate: .leastNonzeroMagnitude, owner: "日本"),
        // A fraction whose nearest Double is integral (Foundation's JSONDecoder gave an Int64 for
        // it: an archive import lost the fraction; found by `generatedValuesComeBackExactly`).
        Account(id: 0, limit: 0, balance: Decimal(string: "4827137357017551.1939639394396") ?? 0, rate: 0, owner: ""),
    ]

    enum Screen: String { case all, detail, list }

    static func machine() throws -> Machine {
        try Machine(
            MachineDefinition("accounts") {
                StateNode(Screen.all, navigation: .popToRoot, validNextStates: [.detail]) {
                    On("show", to: "detail")
                }
                StateNode(Screen.detail, navigation: .push(), validNextStates: [.all, .list, .detail]) {
                    On("update")
                }
                StateNode(Screen.list, navigation: .push(), validNextStates: [.detail, .all])
            })
    }

    /// Runs `accounts` through one session (context, entered data, payloads), then checks every
    /// place they come back from.
    static func expectExact(_ accounts: [Account]) async throws {
        let fixture = try EngineFixture(snapshotInterval: 2)
        defer { fixture.remove() }
        let context = try JSONValue(encoding: accounts)
        do {
            let engine = try fixture.open(registering: [try machine()])
            defer { engine.close() }
            let session = try await engine.startSession(id: "exact", machine: "accounts", context: context)
            for account in accounts {
                try await session.enter(Screen.detail, data: account)
                #expect(try session.state.data["detail"]?.decode(Account.self) == account)
                let step = try await session.send("update", payload: try JSONValue(encoding: account))
                #expect(step.state.configuration == ["detail"])
            }
            #expect(try session.state.context.decode([Account].self) == accounts)
        }
        // After a restart: the session resumes from its latest snapshot and the records after it.
        let engine = try fixture.open(registering: [try machine()])
        defer { engine.close() }
        let resumed = try engine.session("exact")
        #expect(try resumed.state.context.decode([Account].self) == accounts)
        if let last = accounts.last {
            #expect(try resumed.state.data["detail"]?.decode(Account.self) == last)
        }
        // Replay: every version's payload and data.
        var cursor = try engine.replayCursor(for: "exact")
        for (index, account) in accounts.enumerated() {
            let entered = try cursor.seek(to: UInt64(2 + 2 * index))
            #expect(try entered.stateData["detail"]?.decode(Account.self) == account)
            let updated = try cursor.seek(to: UInt64(3 + 2 * index))
            #expect(try updated.payload.decode(Account.self) == account)
            #expect(try updated.context.decode([Account].self) == accounts)
        }
        // A session archive, imported into another store.
        let archive = try engine.exportSession(SessionID("exact"))
        let other = try EngineFixture(snapshotInterval: 3)
        defer { other.remove() }
        let importer = try other.open(registering: [try machine()])
        defer { importer.close() }
        _ = try await importer.importSession(archive)
        let imported = try importer.session("exact")
        #expect(imported.state == resumed.state)
        #expect(try importer.exportSession(SessionID("exact")) == archive)
    }

    @Test func boundaryValuesComeBackExactlyLiveAfterARestartInReplayAndThroughAnArchive() async throws {
        try await Self.expectExact(Self.boundary)
    }

    static let accounts = zip(
        Gen.int64(), Gen.uint64(),
        zip(Gen.number.string(of: 1...38), Gen.int(in: -30...30))
            .compactMap { digits, exponent in Decimal(string: "\(digits)e\(exponent)") },
        Gen<UInt64>.bitSet.map { Double(bitPattern: $0) }.filter(\.isFinite),
        Gen.uint32(in: 0...0x10FFFF).compactMap { Unicode.Scalar($0) }.array(of: 0...8).map {
            String(String.UnicodeScalarView($0))
        }
    ).map { Account(id: $0, limit: $1, balance: $2, rate: $3, owner: $4) }

    @Test func generatedValuesComeBackExactly() async {
        await propertyCheck(count: 12, input: Self.accounts.array(of: 1...4)) { accounts in
            do {
                try await Self.expectExact(accounts)
            } catch {
                Issue.record(error, "\(accounts)")
            }
        }
    }

    @Test func aValueThatCannotBeWrittenIsRefusedAndNothingIsWritten() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Self.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "refused", machine: "accounts")
        try await session.enter(Screen.detail, data: Self.boundary[0])
        let before = session.version
        await #expect(throws: EngineError.self) { try await session.send("update", payload: ["rate": .number(.nan)]) }
        await #expect(throws: EngineError.self) {
            try await session.send("update", payload: ["rate": .number(Double.infinity)])
        }
        await #expect(throws: EngineError.self) {
            try await session.enter("list", data: ["rate": .number(-Double.infinity)])
        }
        #expect(session.version == before)
        #expect(try engine.history(of: SessionID("refused")).count == Int(before))
    }
}

import Foundation
import RewindLMDB
import RewindTestSupport
@_spi(Internals) import RewindValues
import Testing

@testable import Rewind

/// The built-in ``ScreenFlowProjection``'s fold over record views must store exactly the bytes the
/// general fold (the projection's own `apply` on whole records) stores.
struct ScreenFlowFoldStepTests {
    /// Strings that stress the fold's byte-level shortcuts: small and long (heap) strings,
    /// non-ASCII, and pairs that are equal as Swift `String`s but differ in bytes (precomposed
    /// and decomposed accents).
    static let sessions = [
        "ann", "bob", "a-session-id-longer-than-fifteen-bytes", "café", "cafe\u{301}", "日本",
        "user-0", "user-1", "user-2", "user-3",
    ]
    static let machines = ["onboarding", "a-machine-with-a-long-name", "mäschine", "ma\u{308}schine"]
    static let states = [
        "initial", "greeting", "login", "home", "état", "e\u{301}tat", "main.settings.notifications",
        "日", "b", "a",
    ]
    static let events = ["start", "loggedIn", "logout", "a-rather-long-event-name", "ëvent", "e\u{308}vent"]

    static func randomTransition(using random: inout SeededRandom) -> TransitionDraft {
        func pick(_ strings: [String]) -> String { strings[Int.random(in: 0..<strings.count, using: &random)] }
        let target = (0..<Int.random(in: 1...3, using: &random)).map { _ in pick(states) }  // may repeat
        let stateData: [UInt8] =
            random.chance(0.4)
            ? [] : (0..<Int.random(in: 1...24, using: &random)).map { _ in UInt8.random(in: 0...3, using: &random) }
        return TransitionDraft(
            timestamp: Timestamp(microsecondsSince1970: Int64.random(in: 0...1_000_000_000, using: &random)),
            machine: pick(machines), definition: "v1", event: pick(events),
            source: [pick(states)], target: target, navigation: [], payload: [], stateData: stateData)
    }

    /// Every state of `name` in `store`, keyed by the state key's bytes (the name's prefix removed).
    static func states(of name: String, in store: TransitionStore) throws -> [[UInt8]: [UInt8]] {
        let prefix = ProjectionKeys.prefix(name)
        var states: [[UInt8]: [UInt8]] = [:]
        try store.read { transaction in
            try transaction.forEach(in: .projections, from: prefix) { key, value in
                guard key.starts(with: prefix) else { return .stop }
                states[Array(key.dropFirst(prefix.count))] = Array(value)
                return .next
            }
        }
        return states
    }

    /// Random walks over many sessions, folded in several runs (each new run reads the states the
    /// previous one stored), with writes at random points and the fast fold's whole-record entry
    /// (the inline path) mixed in.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func theViewFoldStoresExactlyWhatTheGeneralFoldStores(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try TransitionStore(directory: directory.path)
        defer { store.close() }
        var random = SeededRandom(seed: seed)
        var checkpoint: UInt64 = 0
        for _ in 0..<3 {
            try store.write { transaction in
                for _ in 0..<800 {
                    let session = try SessionID(Self.sessions[Int.random(in: 0..<Self.sessions.count, using: &random)])
                    try transaction.append([Self.randomTransition(using: &random)], to: session)
                }
            }
            var folded = 0
            try store.write { transaction in
                let fast = ScreenFlowProjection(name: "fast").runner(mode: .catchUp).makeFold(after: checkpoint)
                let general = ProjectionFold(
                    step: RecordFoldStep(projection: ScreenFlowProjection(name: "general")), after: checkpoint)
                #expect(fast is ProjectionFold<ScreenFlowFoldStep>)
                try transaction.forEachRecordView(from: checkpoint + 1) { view in
                    if random.chance(0.2) {
                        try fast.apply(view.record(), reading: transaction)
                    } else {
                        try fast.apply(view, reading: transaction)
                    }
                    try general.apply(view.record(), reading: transaction)
                    if random.chance(0.01) {
                        try fast.write(to: transaction)
                        try general.write(to: transaction)
                    }
                    folded += 1
                    return .next
                }
                try fast.write(to: transaction)
                try general.write(to: transaction)
                #expect(fast.checkpoint == general.checkpoint)
                checkpoint = fast.checkpoint
            }
            #expect(folded == 800)
            let fastStates = try Self.states(of: "fast", in: store)
            #expect(fastStates.count == Self.sessions.count)
            #expect(fastStates == (try Self.states(of: "general", in: store)))
        }
    }

    /// The same through the engine: a rebuild (view fold) gives the bytes the inline updates gave.
    @Test func aRebuildStoresWhatTheInlineUpdatesStored() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = try ProjectionFixtures.engine(in: directory, projections: [ScreenFlowProjection()])
        defer { engine.close() }
        for (index, id) in ["ann", "bob", "cat", "dan", "a-session-id-longer-than-fifteen-bytes"].enumerated() {
            try await ProjectionFixtures.onboard(engine, id: id, steps: index % 4)
        }
        let inline = try Self.states(of: ScreenFlowProjection().name, in: engine.writableStore)
        #expect(inline.count == 5)
        try engine.rebuildProjection(named: ScreenFlowProjection().name)
        #expect(try Self.states(of: ScreenFlowProjection().name, in: engine.writableStore) == inline)
    }

    /// A record corrupted behind the store's back stops a rebuild (which reads record views)
    /// with the record's sequence and the reason.
    @Test func aRebuildOverACorruptedRecordNamesIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = try ProjectionFixtures.engine(in: directory, projections: [ScreenFlowProjection()])
        defer { engine.close() }
        for id in ["ann", "bob", "cat"] { try await ProjectionFixtures.onboard(engine, id: id, steps: 3) }
        let environment = try Environment(directory: directory.path)
        defer { environment.close() }
        let log = try environment.database(named: StoreLayout.log, create: false)
        try environment.write { transaction in
            let key = StoreKey.uint64(5)
            guard var bytes = try transaction.get(key, in: log) else {
                Issue.record("no record 5")
                return
            }
            bytes[bytes.count / 2] ^= 0x5A
            try transaction.put(bytes, forKey: key, in: log)
        }
        let error = #expect(throws: StoreError.self) {
            try engine.rebuildProjection(named: ScreenFlowProjection().name)
        }
        guard case .corruptedRecord(let sequence, let reason)? = error else {
            Issue.record("expected corruptedRecord, got \(String(describing: error))")
            return
        }
        #expect(sequence == 5)
        #expect(reason.contains("checksum"))
    }

    /// The one fold step on a whole record and on its borrowed view: the same flow, byte for byte,
    /// where strings are equal as `String`s but differ in bytes — the machine name keeps the bytes it
    /// had, the event and the configuration take the record's, and `reached` gains no state equal to
    /// one it holds.
    @Test func recordsAndTheirViewsTakeTheSameStep() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try TransitionStore(directory: directory.path)
        defer { store.close() }
        func at(_ microseconds: Int64) -> Timestamp { Timestamp(microsecondsSince1970: microseconds) }
        try store.append(
            [
                TransitionDraft(
                    timestamp: at(1), machine: "m\u{E4}schine", definition: "v1", event: "\u{EB}vent",
                    source: [], target: ["b", "a"], stateData: [1, 2]),
                TransitionDraft(
                    timestamp: at(2), machine: "ma\u{308}schine", definition: "v1", event: "e\u{308}vent",
                    source: ["b", "a"], target: ["e\u{301}tat"]),
                TransitionDraft(
                    timestamp: at(3), machine: "other", definition: "v1", event: "x",
                    source: ["e\u{301}tat"], target: ["\u{E9}tat", "a"], stateData: [3]),
            ], to: SessionID("s"))
        let projection = ScreenFlowProjection()
        var fromRecords: ScreenFlowProjection.Flow?
        var fromViews: ScreenFlowProjection.Flow?
        var strings = UTF8KeyTable()
        var flows: [ScreenFlowProjection.Flow] = []
        try store.read { transaction in
            try transaction.forEachRecordView(from: 1) { view in
                projection.apply(view.record(), to: &fromRecords)
                ScreenFlowProjection.Flow.fold(view, into: &fromViews, strings: &strings)
                var recordBytes: [UInt8] = []
                var viewBytes: [UInt8] = []
                if let fromRecords { projection.encode(fromRecords, into: &recordBytes) }
                if let fromViews { projection.encode(fromViews, into: &viewBytes) }
                #expect(!recordBytes.isEmpty && recordBytes == viewBytes, "after sequence \(view.sequence)")
                if let fromRecords { flows.append(fromRecords) }
                return .next
            }
        }
        try #require(flows.count == 3)
        func utf8(_ strings: [String]) -> [[UInt8]] { strings.map { Array($0.utf8) } }
        #expect(utf8(flows[0].reached) == utf8(["a", "b"]))
        #expect(flows[0].stateData == [1, 2])
        #expect(utf8([flows[1].machine]) == utf8(["m\u{E4}schine"]))  // kept: equal as a String
        #expect(utf8([flows[1].lastEvent]) == utf8(["e\u{308}vent"]))  // taken: the record's bytes
        #expect(utf8(flows[1].configuration) == utf8(["e\u{301}tat"]))
        #expect(flows[1].stateData == [])
        #expect(flows[1].updated == at(2) && flows[1].version == 2)
        #expect(utf8(flows[2].configuration) == utf8(["\u{E9}tat", "a"]))
        #expect(utf8(flows[2].reached) == utf8(["a", "b", "e\u{301}tat"]))  // "\u{E9}tat" is there already
        #expect(flows[2].machine == "other" && flows[2].lastEvent == "x" && flows[2].stateData == [3])
    }
}

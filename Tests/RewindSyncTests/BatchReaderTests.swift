import Foundation
import Rewind
@_spi(Internals) import RewindStore
import RewindTestSupport
import Testing

@testable import RewindSync

/// Batches read from a store's log: split by record and byte limits, the records' stored bytes,
/// each definition once, and the RWB1 framing round-trips through the one codec.
@Suite struct BatchReaderTests {
    /// A store with onboarding (4 records a session) and kanji sessions interleaved.
    static func store(_ fixture: EngineFixture) async throws -> Engine {
        let engine = try fixture.open(registering: [
            ExampleMachines.Onboarding.machine(), ExampleMachines.Kanji.machine(),
        ])
        for index in 0..<5 {
            let session = try await engine.startSession(
                id: "onboarding-\(index)", machine: ExampleMachines.Onboarding.definition.name)
            for event in ExampleMachines.Onboarding.Event.allCases { _ = try await session.send(event) }
            let kanji = try await engine.startSession(
                id: "kanji-\(index)", machine: ExampleMachines.Kanji.definition.name)
            _ = try await kanji.enter(
                ExampleMachines.Kanji.State.detail,
                data: ExampleMachines.Kanji.Character(character: "木", meanings: ["tree", "wood \(index)"]))
        }
        return engine
    }

    @Test func batchesStopBeforeAnErasedGapAndBeginAfterOne() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try await Self.store(fixture)
        defer { engine.close() }
        // onboarding-1 holds sequences 7…10: erased, they leave a gap in the log.
        try engine.erase(SessionID("onboarding-1"))
        let before = try BatchReader.read(
            from: engine.store, start: 1, maximumRecords: 100, maximumBytes: .max, known: [])
        #expect(before.batch.firstSequence == 1)
        #expect(before.batch.records.count == 6)
        let after = try BatchReader.read(
            from: engine.store, start: 7, maximumRecords: 100, maximumBytes: .max, known: [])
        #expect(after.batch.firstSequence == 11)
        #expect(after.batch.records.count == 20)
        #expect(try RecordCodec.decode(after.batch.records[0], sequence: 11).session == SessionID("kanji-1"))
        let notices = try BatchReader.pendingNotices(in: engine.store, for: "https://fleet.example")
        #expect(notices.map(\.ranges) == [[7...10]])
        try engine.writableStore.write { try $0.setErasureCheckpoint(1, for: "https://fleet.example") }
        #expect(try BatchReader.pendingNotices(in: engine.store, for: "https://fleet.example").isEmpty)
    }

    @Test func batchesSplitByRecordsAndCarryEachDefinitionOnce() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try await Self.store(fixture)
        defer { engine.close() }
        let records = try engine.store.records()
        #expect(records.count == 30)

        var next: UInt64 = 1
        var known: Set<DefinitionName> = []
        var firsts: [UInt64] = []
        var sent: [[UInt8]] = []
        var definitionsSent: [String] = []
        while true {
            let pending = try BatchReader.read(
                from: engine.store, start: next, maximumRecords: 7, maximumBytes: .max, known: known)
            #expect(pending.head == 30)
            guard !pending.batch.records.isEmpty else { break }
            #expect(pending.batch.records.count == min(7, 31 - Int(next)))
            #expect(pending.byteCount == pending.batch.encoded().count)
            // The framing decodes to the same batch (one codec, both directions).
            #expect(try RecordBatch(decoding: pending.batch.encoded()) == pending.batch)
            firsts.append(pending.batch.firstSequence)
            sent += pending.batch.records
            definitionsSent += pending.batch.definitions.map(\.machine)
            for definition in pending.batch.definitions {
                let stored = try #require(
                    try engine.storedDefinition(name: definition.machine, version: definition.contentVersion))
                #expect(stored.contentVersion == definition.contentVersion)
            }
            known.formUnion(pending.named)
            next += UInt64(pending.batch.records.count)
        }
        #expect(firsts == [1, 8, 15, 22, 29])
        // The records' bytes as the store holds them: each decodes to the log's record.
        #expect(sent.count == 30)
        for (bytes, record) in zip(sent, records) {
            #expect(try RecordCodec.decode(bytes, sequence: record.sequence) == record)
            #expect(bytes == RecordCodec.encode(record))
        }
        // Each machine's definition went once, with the first record naming it.
        #expect(
            definitionsSent.sorted()
                == [ExampleMachines.Kanji.definition.name, ExampleMachines.Onboarding.definition.name].sorted())
    }

    @Test func batchesSplitByBytesAndAnOversizedRecordGoesAlone() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try await Self.store(fixture)
        defer { engine.close() }
        let all = try BatchReader.read(
            from: engine.store, start: 1, maximumRecords: .max, maximumBytes: .max, known: [])
        #expect(all.batch.records.count == 30)
        let limit = all.byteCount / 3
        var next: UInt64 = 1
        var batches = 0
        var known: Set<DefinitionName> = []
        while true {
            let pending = try BatchReader.read(
                from: engine.store, start: next, maximumRecords: .max, maximumBytes: limit, known: known)
            guard !pending.batch.records.isEmpty else { break }
            #expect(pending.byteCount <= limit)
            #expect(pending.byteCount == pending.batch.encoded().count)
            // Full: the next record would not have fit.
            let after = try BatchReader.read(
                from: engine.store, start: next, maximumRecords: pending.batch.records.count + 1,
                maximumBytes: .max, known: known)
            if after.batch.records.count > pending.batch.records.count { #expect(after.byteCount > limit) }
            known.formUnion(pending.named)
            next += UInt64(pending.batch.records.count)
            batches += 1
        }
        #expect(next == 31)
        #expect(batches >= 3 && batches <= 5)

        // A limit smaller than any record: one record per batch, never none.
        let tiny = try BatchReader.read(from: engine.store, start: 5, maximumRecords: .max, maximumBytes: 1, known: [])
        #expect(tiny.batch.records.count == 1)
        #expect(tiny.batch.firstSequence == 5)
        // Past the head: nothing, and the head.
        let none = try BatchReader.read(
            from: engine.store, start: 31, maximumRecords: .max, maximumBytes: .max, known: [])
        #expect(none.batch.records.isEmpty && none.head == 30)
    }

    @Test func aTrimmedSessionsBaseGoesWithItsFirstKeptRecordOnly() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try await Self.store(fixture)
        defer { engine.close() }
        // onboarding-0 holds sequences 1…4 (versions 1…4): trimmed before version 3, its base is
        // the snapshot at 3 and sequences 1 and 2 are gone.
        try engine.trimHistory(of: SessionID("onboarding-0"), before: 3)
        let stored = try #require(
            try engine.store.read {
                try $0.value(forKey: StoreKey.compound("onboarding-0", UInt64(3)), in: .snapshots)
            })

        let first = try BatchReader.read(
            from: engine.store, start: 1, maximumRecords: 100, maximumBytes: .max, known: [])
        #expect(first.batch.firstSequence == 3)
        #expect(first.batch.bases == [RecordBatch.Base(session: "onboarding-0", version: 3, snapshot: stored)])
        #expect(try JSONDecoder().decode(SessionSnapshot.self, from: Data(stored)).version == 3)
        // Other sessions' later versions (kanji's version 2) carry none.
        #expect(first.batch.records.count == 28)
        let encoded = first.batch.encoded()
        #expect(Array(encoded.prefix(4)) == Array("RWB2".utf8))
        #expect(first.byteCount == encoded.count)
        #expect(try RecordBatch(decoding: encoded) == first.batch)

        // A batch that begins after the base's record: no base, and the framing of before bases.
        let later = try BatchReader.read(
            from: engine.store, start: 4, maximumRecords: 100, maximumBytes: .max, known: [])
        #expect(later.batch.bases.isEmpty)
        #expect(Array(later.batch.encoded().prefix(4)) == Array("RWB1".utf8))
        #expect(later.byteCount == later.batch.encoded().count)

        // Split by bytes, the base's size counts: every batch fits and the base goes exactly once.
        var next: UInt64 = 1
        var bases: [RecordBatch.Base] = []
        let limit = first.byteCount / 4
        while true {
            let pending = try BatchReader.read(
                from: engine.store, start: next, maximumRecords: .max, maximumBytes: limit, known: [])
            guard !pending.batch.records.isEmpty else { break }
            #expect(pending.byteCount == pending.batch.encoded().count)
            #expect(pending.byteCount <= limit || pending.batch.records.count == 1)
            bases += pending.batch.bases
            next = pending.batch.firstSequence + UInt64(pending.batch.records.count)
        }
        #expect(next == 31)
        #expect(bases == first.batch.bases)
    }
}

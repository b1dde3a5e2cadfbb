import Benchmark
import BenchmarkMachines
import BenchmarkSupport
import Foundation
import Rewind
@_spi(Internals) import RewindStore

/// Item 16 (issue 34's archive target, import and export ≥ 0.5× raw LMDB's bulk write and read of
/// the same records): one session's archive exported and imported, against raw LMDB reading and
/// writing as many values of the session's record size, and reading the session's own records
/// with the check every reader makes of a stored record (the floor of an export that refuses a
/// damaged record), interleaved in each iteration (in a rotating order), each recording its time
/// per record.
func registerArchiveBenchmarks() {
    let export = nanoseconds("Rewind export ns/record")
    let rawRead = nanoseconds("raw LMDB read ns/record")
    let importing = nanoseconds("Rewind import ns/record")
    let rawWrite = nanoseconds("raw LMDB NOSYNC write ns/record")
    let rawChecked = nanoseconds("raw LMDB read + record check ns/record")
    let records = 20_000
    let box = FixtureBox<ArchiveFixture>()
    Benchmark(
        "16 archive export and import of a 20,000-record session: Rewind, raw LMDB read and NOSYNC write of as many records",
        configuration: .init(
            metrics: [export, rawRead, importing, rawWrite, rawChecked], maxDuration: .seconds(6),
            maxIterations: 12),
        closure: { benchmark in
            guard let fixture = box.value else { return benchmark.error("no fixture") }
            do {
                let clock = ContinuousClock()
                for turn in 0..<5 {
                    let start = clock.now
                    switch (benchmark.currentIteration + turn) % 5 {
                    case 0:
                        let archive = try fixture.engine.engine.exportSession(fixture.session)
                        guard archive.count == fixture.archive.count else {
                            return benchmark.error("an export of \(archive.count) bytes, not \(fixture.archive.count)")
                        }
                        benchmark.measurement(export, clock.now.nanoseconds(since: start) / records)
                    case 1:
                        var sink: [UInt8] = []
                        sink.reserveCapacity(fixture.readBytes)
                        let read = try fixture.readLog.readAll(into: &sink)
                        guard read == records else { return benchmark.error("raw LMDB read \(read) records") }
                        benchmark.measurement(rawRead, clock.now.nanoseconds(since: start) / records)
                    case 2:
                        let info = try await fixture.engine.engine.importSession(
                            fixture.archive, as: try SessionID("imported-\(fixture.nextImport())"))
                        guard info.recordCount == UInt64(records) else {
                            return benchmark.error("an import of \(info.recordCount) records")
                        }
                        benchmark.measurement(importing, clock.now.nanoseconds(since: start) / records)
                    case 3:
                        try fixture.writeLog.append(records: records, batch: records)
                        benchmark.measurement(rawWrite, clock.now.nanoseconds(since: start) / records)
                    default:
                        var sink: [UInt8] = []
                        sink.reserveCapacity(fixture.checkedBytes)
                        let read = try fixture.checkLog.readAllCheckingRecords(into: &sink)
                        guard read == records else { return benchmark.error("raw LMDB read \(read) records") }
                        benchmark.measurement(rawChecked, clock.now.nanoseconds(since: start) / records)
                    }
                }
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: { box.value = try await ArchiveFixture(records: records) },
        teardown: { box.value?.close() })
}

/// A no-sync engine holding one session of `records` records (the flat cycle, sent 64 events a
/// `send(contentsOf:)`), its archive, and two raw LMDB logs (`MDB_NOSYNC`) of values of the
/// session's average record size: one holding as many values (read), one written to.
final class ArchiveFixture: @unchecked Sendable {
    let engine: EngineFixture
    let session: SessionID
    let archive: Data
    let readLog: RawLMDBLog
    let writeLog: RawLMDBLog
    /// The session's own stored records, under their sequences: read and checked, the floor of
    /// an export that refuses a damaged record.
    let checkLog: RawLMDBLog
    /// The bytes the raw read copies out.
    let readBytes: Int
    /// The bytes the checked read copies out.
    let checkedBytes: Int
    private var imports = 0

    init(records: Int) async throws {
        engine = try await EngineFixture(durability: .noSync, sessions: 1)
        let first = engine.sessions[0]
        session = first.id
        // Two records so far (start, launch): the rest of `records` in batches of 64.
        var left = records - 2
        var position = 0
        while left > 0 {
            let count = min(64, left)
            let events = (0..<count).map { BenchMachines.flatCycle[(position + $0) % BenchMachines.flatCycle.count] }
            try await first.send(contentsOf: events)
            position += count
            left -= count
        }
        try engine.engine.flush()
        let stored = try engine.engine.store.records(of: session)
        guard stored.count == records else { throw BenchmarkSetupError("\(stored.count) records, not \(records)") }
        let recordSize = stored.reduce(0) { $0 + RecordCodec.encode($1).count } / records
        archive = try engine.engine.exportSession(session)
        readLog = try RawLMDBLog(recordSize: recordSize, noSync: true)
        try readLog.append(records: records, batch: records)
        readBytes = recordSize * records
        writeLog = try RawLMDBLog(recordSize: recordSize, noSync: true)
        checkLog = try RawLMDBLog(recordSize: recordSize, noSync: true)
        let encoded = stored.map { (sequence: $0.sequence, bytes: RecordCodec.encode($0)) }
        try checkLog.append(values: encoded)
        checkedBytes = encoded.reduce(0) { $0 + $1.bytes.count }
        print(
            "archive fixture: \(records) records of \(recordSize) bytes on average in the store, an archive of \(archive.count) bytes"
        )
    }

    /// The number of the next import (each imports under a new id).
    func nextImport() -> Int {
        imports += 1
        return imports
    }

    func close() {
        engine.close()
        readLog.close()
        writeLog.close()
        checkLog.close()
    }
}

import Benchmark
import BenchmarkSupport
import Foundation
import RewindServer

/// Item 8, the fleet's bytes: the whole fleet (over 200,000 records from 64 real device stores)
/// loaded once through ingestion into a database of its own, then each ingestion table's and
/// index's size, scaled to one million records; beside them, the same records in the devices'
/// LMDB stores (used pages of data.mdb, and the `log` database's pages alone). One iteration: the
/// numbers are sizes, not times.
func registerStorageBenchmarks(cluster: DatabaseURL) {
    func metric(_ name: String) -> BenchmarkMetric {
        .custom("\(name) bytes per 1M records", polarity: .prefersSmaller, useScalingFactor: false)
    }
    let recordsHeap = metric("PG records table")
    let recordsIndexes = metric("PG records indexes")
    let sessions = metric("PG sessions table+indexes")
    let others = metric("PG definitions+stores")
    let total = metric("PG total")
    let lmdbUsed = metric("LMDB data.mdb used")
    let lmdbLog = metric("LMDB log database")
    let box = FixtureBox<(server: FleetServer, devices: [FleetDevice], upload: FleetUpload)>()
    let database = FixtureBox<FleetDatabase>()

    Benchmark(
        "8 fleet storage: bytes per million records, PostgreSQL after ingestion and the devices' LMDB stores",
        configuration: .init(
            metrics: [recordsHeap, recordsIndexes, sessions, others, total, lmdbUsed, lmdbLog], warmupIterations: 0,
            maxDuration: .seconds(120), maxIterations: 1),
        closure: { benchmark in
            guard let (server, devices, upload) = box.value else { return benchmark.error("no fixture") }
            do {
                let storeIDs = (0..<devices.count).map { _ in UUID() }
                let run = try await upload.run(server: server, storeIDs: storeIDs)
                let sizes = try await PostgresSizes.read(server.database)
                guard sizes.records == upload.recordCount else {
                    throw FleetSetupError(
                        "the records table holds \(sizes.records) rows, \(upload.recordCount) were uploaded")
                }
                let records = sizes.records
                func scaled(_ bytes: Int) -> Int { perMillion(bytes, records: records) }
                benchmark.measurement(recordsHeap, scaled(sizes.bytes(of: "records", indexes: false)))
                benchmark.measurement(recordsIndexes, scaled(sizes.bytes(of: "records", indexes: true)))
                benchmark.measurement(sessions, scaled(sizes.bytes(of: "sessions", indexes: nil)))
                benchmark.measurement(
                    others,
                    scaled(sizes.bytes(of: "definitions", indexes: nil) + sizes.bytes(of: "stores", indexes: nil)))
                benchmark.measurement(total, scaled(sizes.totalBytes))
                let pageSize = devices.first?.lmdb.pageSize ?? 4096
                let lmdbUsedBytes = devices.reduce(0) { $0 + $1.lmdb.usedBytes }
                let lmdbRecords = devices.reduce(0) { $0 + $1.records.count }
                benchmark.measurement(lmdbUsed, perMillion(lmdbUsedBytes, records: lmdbRecords))
                benchmark.measurement(
                    lmdbLog,
                    perMillion(
                        devices.reduce(0) { $0 + ($1.lmdb.databasePages["log"] ?? 0) } * pageSize, records: lmdbRecords)
                )

                let encodedBytes = devices.reduce(0) { $0 + $1.encoded.reduce(0) { $0 + $1.count } }
                report(
                    "loaded \(records) records (\(sizes.sessions) sessions, \(devices.count) stores) through ingestion in \(String(format: "%.1f", run.seconds)) s; the records' own encoding: \(megabytes(perMillion(encodedBytes, records: lmdbRecords))) per 1M (\(encodedBytes / max(lmdbRecords, 1)) bytes each on average, \(devices.flatMap { $0.encoded.map(\.count) }.min() ?? 0)–\(devices.flatMap { $0.encoded.map(\.count) }.max() ?? 0))"
                )
                report("PostgreSQL, as loaded (no VACUUM): relation, bytes, bytes per 1M records")
                for relation in sizes.relations {
                    report(
                        "  \(relation.isIndex ? "index " : "table ")\(relation.name): \(relation.bytes), \(megabytes(scaled(relation.bytes))) per 1M"
                    )
                }
                report(
                    "  total: \(sizes.totalBytes), \(megabytes(scaled(sizes.totalBytes))) per 1M; the record column alone (pg_column_size) \(megabytes(scaled(sizes.recordColumnBytes))) per 1M"
                )
                report(
                    "devices' LMDB stores (\(devices.count) stores, \(lmdbRecords) records, page size \(pageSize)): data.mdb used pages \(megabytes(perMillion(lmdbUsedBytes, records: lmdbRecords))) per 1M, files on disk \(megabytes(perMillion(devices.reduce(0) { $0 + $1.lmdb.fileBytes }, records: lmdbRecords))) per 1M"
                )
                for name in LMDBUsage.databaseNames {
                    let bytes = devices.reduce(0) { $0 + ($1.lmdb.databasePages[name] ?? 0) } * pageSize
                    report("  database \(name): \(megabytes(perMillion(bytes, records: lmdbRecords))) per 1M")
                }
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: {
            let devices = try await writeFleet(
                devices: FleetShape.devices, recordsPerDevice: FleetShape.recordsPerDevice)
            let made = try await FleetDatabase.make(in: cluster)
            database.value = made
            let server = try await FleetServer.start(database: made)
            box.value = (server, devices, FleetUpload(devices: devices, batchSize: FleetShape.batchSize))
        },
        teardown: {
            try await box.value?.server.stop()
            box.value = nil
            try await database.value?.drop()
        })
}

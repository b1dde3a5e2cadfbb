import BenchmarkSupport
import CLMDBBench
import Foundation
import Rewind
import RewindExamples
import RewindServer
@_spi(Internals) import RewindStore

/// One simulated device: a real Rewind store in a scratch directory, written by the engine with
/// two example machines (onboarding and loading-view sessions, the latter with JSON payloads),
/// read back as the uploader would send it: every record in the store's own encoding
/// (`RecordCodec`, with its CRC-32C) and the definitions the records name.
struct FleetDevice: Sendable {
    /// The device's index in the fleet (0..<64).
    let index: Int
    /// Every record of the device's log, in sequence order (sequences 1...count).
    let records: [TransitionRecord]
    /// The records' encodings, as the batch carries them.
    let encoded: [[UInt8]]
    /// The definitions the records name, as the store keeps them.
    let definitions: [IngestionBatch.Definition]
    /// What the store's LMDB environment takes for these records.
    let lmdb: LMDBUsage

    /// Writes a store of at least `records` records with the engine (no-sync: setup speed, the
    /// bytes are the same), reads it back, measures its LMDB pages and removes it (unless it was
    /// written in `keepingIn`, which keeps it).
    static func write(index: Int, records target: Int, keepingIn kept: ScratchDirectory? = nil) async throws
        -> FleetDevice
    {
        let directory = try kept ?? ScratchDirectory("fleet-device-\(index)")
        defer { if kept == nil { directory.remove() } }
        var configuration = EngineConfiguration()
        configuration.durability = .noSync
        let engine = try Engine(directory: directory.path, configuration: configuration)
        var closed = false
        defer { if !closed { engine.close() } }
        try engine.register(ExampleMachines.Onboarding.machine())
        try engine.register(ExampleMachines.LoadingView.machine())
        typealias Loading = ExampleMachines.LoadingView
        var written = 0
        var sessionIndex = 0
        while written < target {
            if sessionIndex % 2 == 0 {
                // The onboarding flow to its end: 4 records.
                let session = try await engine.startSession(
                    id: "d\(index)-onboarding-\(sessionIndex)", machine: ExampleMachines.Onboarding.definition.name)
                for event in ExampleMachines.Onboarding.Event.allCases { _ = try await session.send(event) }
                written += 4
            } else {
                // A screen that loads, shows its model, reloads, fails and retries, 1 to 8 times.
                let session = try await engine.startSession(
                    id: "d\(index)-loading-\(sessionIndex)", machine: Loading.definition.name)
                written += 1
                let cycles = 1 + (sessionIndex * 7 + index) % 8
                for cycle in 0..<cycles {
                    let model = Loading.Model(title: "Inbox \(cycle)", items: (0...(cycle % 4)).map { "message \($0)" })
                    _ = try await session.send(Loading.Event.loaded, payload: model)
                    _ = try await session.send(Loading.Event.reload)
                    _ = try await session.send(Loading.Event.failed, payload: "timed out after \(cycle + 1) s")
                    _ = try await session.send(Loading.Event.retry)
                    written += 4
                }
            }
            sessionIndex += 1
        }
        let records = try engine.store.records()
        guard records.count == written, records.first?.sequence == 1, records.last?.sequence == UInt64(written) else {
            throw FleetSetupError("device \(index): the store holds \(records.count) records, \(written) were written")
        }
        // The stored definitions the records name, each once, in the order they are first named.
        var definitions: [IngestionBatch.Definition] = []
        var named: Set<String> = []
        try engine.store.read { transaction in
            for record in records where named.insert("\(record.machine)\u{0}\(record.definition)").inserted {
                if let document = try transaction.storedDefinitionDocument(
                    name: record.machine, version: record.definition)
                {
                    definitions.append(
                        .init(machine: record.machine, contentVersion: record.definition, document: document))
                }
            }
        }
        engine.close()
        closed = true
        return FleetDevice(
            index: index, records: records, encoded: records.map(RecordCodec.encode), definitions: definitions,
            lmdb: try LMDBUsage(directory: directory.path))
    }

    /// The batches of up to `size` records that upload the whole log; the first carries the
    /// definitions (the server keeps those it has been sent).
    func batches(size: Int) -> [IngestionBatch] {
        stride(from: 0, to: encoded.count, by: size).map { start in
            IngestionBatch(
                firstSequence: UInt64(start + 1), records: Array(encoded[start..<min(start + size, encoded.count)]),
                definitions: start == 0 ? definitions : [])
        }
    }
}

/// The fleet: `count` devices written concurrently (a few at a time: 2 cores).
func writeFleet(devices count: Int, recordsPerDevice: Int) async throws -> [FleetDevice] {
    try await withThrowingTaskGroup(of: FleetDevice.self) { group in
        var next = 0
        var devices: [FleetDevice] = []
        while next < min(count, 4) {
            let index = next
            group.addTask { try await FleetDevice.write(index: index, records: recordsPerDevice) }
            next += 1
        }
        for try await device in group {
            devices.append(device)
            if next < count {
                let index = next
                group.addTask { try await FleetDevice.write(index: index, records: recordsPerDevice) }
                next += 1
            }
        }
        return devices.sorted { $0.index < $1.index }
    }
}

/// The pages a device store's LMDB environment uses (`data.mdb`), read with LMDB's C API after
/// the engine closed it: `mdb_env_info`'s last page (every page in use, free-list pages of old
/// transactions included) and `mdb_stat` of each named database the store creates.
struct LMDBUsage: Sendable {
    /// The page size.
    let pageSize: Int
    /// Pages up to the last one in use (`me_last_pgno + 1`): the part of data.mdb that holds data.
    let usedPages: Int
    /// Branch, leaf and overflow pages of each of the store's named databases.
    let databasePages: [String: Int]
    /// data.mdb's size on disk (the file is allocated ahead of use).
    let fileBytes: Int

    /// The bytes of the used pages.
    var usedBytes: Int { usedPages * pageSize }

    /// The named databases a store creates (the store's layout: log, session index, sessions,
    /// meta, and the auxiliary ones).
    static let databaseNames = ["log", "session-index", "sessions", "meta"] + AuxiliaryDatabase.allCases.map(\.name)

    init(directory: String) throws {
        var environment: OpaquePointer?
        try check(mdb_env_create(&environment), "mdb_env_create")
        defer { mdb_env_close(environment) }
        try check(mdb_env_set_maxdbs(environment, 32), "mdb_env_set_maxdbs")
        try check(mdb_env_open(environment, directory, UInt32(MDB_RDONLY | MDB_NOLOCK), 0o644), "mdb_env_open")
        var info = MDB_envinfo()
        var stat = MDB_stat()
        try check(mdb_env_info(environment, &info), "mdb_env_info")
        try check(mdb_env_stat(environment, &stat), "mdb_env_stat")
        pageSize = Int(stat.ms_psize)
        usedPages = Int(info.me_last_pgno) + 1
        var transaction: OpaquePointer?
        try check(mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &transaction), "mdb_txn_begin")
        defer { mdb_txn_abort(transaction) }
        var pages: [String: Int] = [:]
        for name in Self.databaseNames {
            var database: MDB_dbi = 0
            try check(mdb_dbi_open(transaction, name, 0, &database), "mdb_dbi_open \(name)")
            var databaseStat = MDB_stat()
            try check(mdb_stat(transaction, database, &databaseStat), "mdb_stat \(name)")
            pages[name] = Int(
                databaseStat.ms_branch_pages + databaseStat.ms_leaf_pages + databaseStat.ms_overflow_pages)
        }
        databasePages = pages
        let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/data.mdb")
        fileBytes = (attributes[.size] as? NSNumber)?.intValue ?? 0
    }
}

private func check(_ code: Int32, _ operation: String) throws {
    guard code == 0 else { throw FleetSetupError("\(operation): \(String(cString: mdb_strerror(code)))") }
}

/// A fleet benchmark's setup failed: what and why.
struct FleetSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

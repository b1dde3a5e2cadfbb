import Foundation
import Rewind
import RewindExamples
import RewindServer
@_spi(Internals) import RewindStore

/// A device: a real Rewind store in a temporary directory, written by the engine with the
/// example machines, and the batches it would upload (its records in the store's own encoding,
/// read with the store's public read API, and the definitions they name).
final class Device: @unchecked Sendable {
    let directory: String
    let engine: Engine

    /// A new store with the onboarding and kanji examples registered (and `extra`, under the names
    /// given), keeping sessions as `retention` says, its records timed by `clock` (the wall clock
    /// when `nil`).
    init(
        extra: [(name: String, machine: Machine)] = [], retention: RetentionPolicy = .keepEverything,
        clock: (@Sendable () -> Timestamp)? = nil
    ) throws {
        directory = NSTemporaryDirectory() + "rewind-server-device-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var configuration = EngineConfiguration()
        configuration.durability = .noSync
        configuration.retention = retention
        if let clock { configuration.clock = clock }
        engine = try Engine(directory: directory, configuration: configuration)
        try engine.register(ExampleMachines.Onboarding.machine())
        try engine.register(ExampleMachines.Kanji.machine())
        for (name, machine) in extra { try engine.register(machine, as: name) }
    }

    /// A copy of the store in `path` (such as a fixture written by an earlier version), opened by
    /// the engine with nothing registered.
    init(copying path: String) throws {
        directory = NSTemporaryDirectory() + "rewind-server-device-" + UUID().uuidString
        try FileManager.default.copyItem(atPath: path, toPath: directory)
        var configuration = EngineConfiguration()
        configuration.durability = .noSync
        engine = try Engine(directory: directory, configuration: configuration)
    }

    deinit {
        engine.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    var storeID: UUID { engine.store.storeID }

    /// The onboarding flow to its end for each of `sessions` (4 records each).
    func runOnboarding(_ sessions: [String]) async throws {
        for id in sessions {
            let session = try await engine.startSession(id: id, machine: ExampleMachines.Onboarding.definition.name)
            for event in ExampleMachines.Onboarding.Event.allCases { _ = try await session.send(event) }
        }
    }

    /// Every record of the log, decoded.
    func records() throws -> [TransitionRecord] {
        try engine.store.records()
    }

    /// The batch of up to `limit` records from `sequence` on, with every definition they name.
    func batch(from sequence: UInt64 = 1, limit: Int = .max) throws -> IngestionBatch {
        let records = try engine.store.records(from: sequence, limit: limit)
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
        return IngestionBatch(
            firstSequence: sequence, records: records.map(RecordCodec.encode), definitions: definitions)
    }
}

/// CRC-32C (Castagnoli), bit by bit: for tests that forge records with a valid checksum around
/// invalid content.
func crc32c(_ bytes: some Sequence<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = (crc >> 1) ^ (0x82F6_3B78 & (0 &- (crc & 1))) }
    }
    return ~crc
}

/// `bytes` with its last four bytes replaced by the CRC-32C of the others (a record's checksum).
func resealed(_ bytes: [UInt8]) -> [UInt8] {
    var copy = bytes
    let checksum = crc32c(copy[..<(copy.count - 4)])
    withUnsafeBytes(of: checksum.littleEndian) { copy.replaceSubrange((copy.count - 4)..., with: $0) }
    return copy
}

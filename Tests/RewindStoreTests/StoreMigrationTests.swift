import Foundation
import RewindLMDB
import Testing

@testable import RewindStore

/// Opening a format 1 store (one `session-index` entry per version, no recent sequences in
/// `sessions`) migrates it to format 2 in one transaction.
@Suite("Store migration")
struct StoreMigrationTests {
    /// Writes a log with the current code, then rewrites its index and sessions the way format 1
    /// stored them; returns every session's sequences by version.
    func formatOneStore(at path: String, breakingVersion broken: UInt64? = nil) throws -> [SessionID: [UInt64]] {
        let store = try TransitionStore(directory: path)
        let model = try SessionIndexTests().randomLog(store, seed: 5)
        let infos = try store.sessions()
        store.close()

        let env = try Environment(directory: path, configuration: EnvironmentConfiguration(maxDatabases: 16))
        defer { env.close() }
        let index = try env.database(named: StoreLayout.sessionIndex, create: false)
        let sessions = try env.database(named: StoreLayout.sessions, create: false)
        let meta = try env.database(named: StoreLayout.meta, create: false)
        try env.write { txn in
            try txn.removeAll(in: index)
            for info in infos {
                for (offset, sequence) in try #require(model[info.session]).enumerated() {
                    let version = UInt64(offset) + 1
                    if version == broken { continue }
                    try txn.put(
                        StoreKey.uint64(sequence), forKey: StoreKey.compound(info.session.rawValue, version), in: index)
                }
                var value: [UInt8] = []
                SessionInfoCodec.encode(info, recent: [], format: SessionInfoCodec.formatVersion1, into: &value)
                try txn.put(value, forKey: Array(info.session.rawValue.utf8), in: sessions)
            }
            try txn.put([0, 0, 0, 1], forKey: StoreLayout.formatVersionKey, in: meta)
        }
        return model
    }

    @Test func aFormatOneStoreIsMigratedAndReadsAndAppendsAsBefore() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let model = try formatOneStore(at: directory.path)
        let store = try TransitionStore(directory: directory.path)
        defer { store.close() }
        #expect(store.formatVersion == StoreLayout.formatVersion)
        for (id, sequences) in model {
            #expect(try store.records(of: id).map(\.sequence) == sequences)
            #expect(try store.records(of: id, direction: .backward).map(\.sequence) == sequences.reversed())
            let info = try #require(try store.sessionInfo(for: id))
            #expect(info.headVersion == UInt64(sequences.count))
            // Appending goes on from the migrated head, across the next block boundary.
            let result = try store.append(
                (0..<StoreLayout.indexBlockSize).map { step("more\($0)", from: ["s"], to: ["t"]) }, to: id,
                expectedVersion: .exact(info.headVersion))
            #expect(try store.records(of: id).map(\.version) == Array(1...result.lastVersion))
        }
    }

    @Test func aFormatOneStoreWithAHoleInItsIndexIsRefusedAndLeftAsItWas() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        _ = try formatOneStore(at: directory.path, breakingVersion: 3)
        let error = #expect(throws: StoreError.self) { _ = try TransitionStore(directory: directory.path) }
        guard case .corruptedEntry(let database, _, let reason)? = error else {
            Issue.record("expected corruptedEntry, got \(String(describing: error))")
            return
        }
        #expect(database == StoreLayout.sessionIndex)
        #expect(reason.contains("version 3 was expected"))
        let env = try Environment(directory: directory.path)
        defer { env.close() }
        let meta = try env.database(named: StoreLayout.meta, create: false)
        #expect(try env.read { try $0.get(StoreLayout.formatVersionKey, in: meta) } == [0, 0, 0, 1])
    }
}

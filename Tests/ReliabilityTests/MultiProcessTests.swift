import Foundation
import Rewind
import RewindLMDB
import RewindTestSupport
import Testing

/// Promise 4: several processes on one store lose and duplicate nothing, conflicts surface as
/// version conflicts, and a reader killed mid-read leaves no stale lock behind.
struct MultiProcessTests {
    /// One JSON line of the helper's default and `many` modes.
    struct Report: Decodable {
        var kind: String
        var session: String
        var n: Int?
        var version: UInt64?
        var detail: String?
    }

    @Test(.hangGuard)
    func fourProcessesOnManySessionsSomeSharedLoseAndDuplicateNothing() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        try fixture.open(registering: [try TickerMachine.machine()]).close()
        let writers = ["w0", "w1", "w2", "w3"]
        let (own, shared, rounds) = (8, 3, 12)
        let startAt = Timestamp.now().microsecondsSince1970 / 1000 + 1_500
        let children = try writers.map { writer in
            try HelperProcess([
                "many", fixture.directory.path, writer, String(own), String(shared), String(rounds), String(startAt),
            ])
        }
        var reports: [String: [Report]] = [:]
        for (writer, child) in zip(writers, children) {
            let status = try await child.waitForExit(timeout: .seconds(300))
            #expect(status.reason == .exit && status.code == 0, "\(writer): \(child.lines.suffix(3))")
            reports[writer] = try child.lines.map { try JSONDecoder().decode(Report.self, from: Data($0.utf8)) }
        }
        let errors = reports.values.joined().filter { $0.kind == "error" }
        #expect(errors.isEmpty, "\(errors.map { $0.detail ?? "" })")

        let engine = try fixture.open(registering: [try TickerMachine.machine()])
        defer { engine.close() }
        let audit = try LogAudit(engine.writableStore)
        #expect(audit.problems.isEmpty, "\(audit.problems.prefix(5))")
        // One start per session; one tick per round, writer and own or shared session.
        let sessions = writers.count * own + shared
        #expect(audit.records.count == sessions + writers.count * rounds * (own + shared))
        #expect(try engine.sessions().count == sessions)
        for index in 0..<shared {
            #expect(audit.records(of: "shared-\(index)").filter { $0.event == StepRecording.startEvent }.count == 1)
        }

        let coder = JSONPayloadCoder()
        var conflicts = 0
        for writer in writers {
            let lines = reports[writer] ?? []
            let acks = lines.filter { $0.kind == "ack" }
            #expect(acks.count == rounds * (own + shared), "\(writer)")
            for ack in acks {
                let version = try #require(ack.version)
                let record = try #require(
                    audit.records(of: ack.session).first { $0.version == version },
                    "\(writer): acknowledged \(ack.session)@\(version) is lost")
                let payload = try coder.decode(JSONValue.self, from: record.payload)
                #expect(
                    payload["writer"]?.stringValue == writer && payload["n"]?.doubleValue == ack.n.map(Double.init),
                    "\(ack.session)@\(version) holds \(payload), acknowledged to \(writer) as n \(ack.n ?? -1)")
            }
            let conflictLines = lines.filter { $0.kind == "conflict" }
            #expect(conflictLines.allSatisfy { $0.session.hasPrefix("shared-") })
            conflicts += conflictLines.count
            // Each writer's ticks are in every shared session once each, in its order.
            for index in 0..<shared {
                let numbers = try audit.records(of: "shared-\(index)").compactMap { record -> Double? in
                    guard record.event == TickerMachine.tick else { return nil }
                    let payload = try coder.decode(JSONValue.self, from: record.payload)
                    return payload["writer"]?.stringValue == writer ? payload["n"]?.doubleValue : nil
                }
                #expect(numbers == (0..<rounds).map(Double.init), "\(writer) in shared-\(index)")
            }
        }
        #expect(conflicts > 0, "the processes never conflicted on a shared session")
        print("four processes: \(audit.records.count) records, \(conflicts) version conflicts on shared sessions")
    }

    /// Found under AddressSanitizer by `TwoProcessesTests.twoProcessesCreatingOneNewStoreAtOnceBothOpenIt`:
    /// a store's creator commits its databases, then its metadata; another process opening the
    /// store between the two was refused with "its metadata has no format version".
    @Test func aStoreWhoseCreatorCommittedItsDatabasesButNotYetItsMetadataOpensAsANewStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // What the creator has committed so far: the databases, empty.
        let environment = try Environment(directory: directory.path)
        _ = try environment.databases(named: StoreLayout.allDatabases, create: true)
        environment.close()

        let store = try TransitionStore(directory: directory.path)
        defer { store.close() }
        #expect(store.formatVersion == StoreLayout.formatVersion)
        #expect(try store.headSequence() == 0)
    }

    @Test(.hangGuard)
    func aReaderKilledMidReadLeavesNoStaleSlotBehind() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let maxReaders = 4
        var configuration = EngineConfiguration(durability: .durable)
        configuration.store.environment.maxReaders = maxReaders
        // This engine keeps the store open throughout, so no later open is the only one (which
        // would reset the reader table anyway): only `mdb_reader_check` can clear the slots.
        let engine = try Engine(directory: fixture.directory.path, configuration: configuration)
        defer { engine.close() }
        try engine.register(try TickerMachine.machine())
        let session = try await engine.startSession(id: "writer", machine: TickerMachine.name)

        // A process takes every reader slot, then dies mid-read.
        let holder = try HelperProcess([
            "readers", "hold", fixture.directory.path, String(maxReaders), String(maxReaders),
        ])
        let holding = try await holder.waitForLine { $0.hasPrefix("holding") || $0.hasPrefix("error") }
        #expect(holding == "holding \(maxReaders)", "\(holder.lines)")
        holder.kill()
        let status = try await holder.waitForExit()
        #expect(status.reason == .uncaughtSignal)

        // The dead reader's slots are still taken in this process's view (it opened the
        // environment before): a read here cannot get one…
        #expect(throws: LMDBError.self) { try engine.store.headSequence() }
        // …but they never block a writer.
        try await session.send(TickerMachine.tick)
        #expect(session.version == 2)

        // A process opening the store clears the dead slots (`mdb_reader_check` on open) and gets
        // every slot at once.
        let taker = try HelperProcess([
            "readers", "take", fixture.directory.path, String(maxReaders), String(maxReaders),
        ])
        let took = try await taker.waitForLine { $0.hasPrefix("took") || $0.hasPrefix("error") }
        #expect(took == "took \(maxReaders)", "\(taker.lines)")
        let takerStatus = try await taker.waitForExit()
        #expect(takerStatus.reason == .exit && takerStatus.code == 0)
        // And this process reads again too.
        #expect(try engine.store.headSequence() == 2)
        #expect(try LogAudit(engine.writableStore).problems.isEmpty)
    }
}

import Foundation
import Rewind
import RewindTestSupport
import Testing

/// Promises 1 and 2: a transition acknowledged survives `kill -9` of the process at any moment,
/// at every durability level (a killed process's writes are in the OS's cache whether or not
/// they were flushed), and after any crash the log is whole (checksums, gap-free sequence,
/// contiguous versions, projections equal to a rebuild).
struct CrashTests {
    /// One `ack` line of the crash helper: a durable send it saw acknowledged.
    struct Acknowledgement: Hashable {
        var session: String
        var version: UInt64
        var sequence: UInt64
        var round: Int
        var n: Int

        init?(_ line: String) {
            let fields = line.split(separator: " ")
            guard fields.count == 6, fields[0] == "ack", let version = UInt64(fields[2]),
                let sequence = UInt64(fields[3]), let round = Int(fields[4]), let n = Int(fields[5])
            else { return nil }
            session = String(fields[1])
            self.version = version
            self.sequence = sequence
            self.round = round
            self.n = n
        }
    }

    static let snapshotInterval: UInt64 = 8

    /// The levels as the crash helper names them.
    static let levels: [(Durability, String)] = [
        (.durable, "durable"), (.lastCommitMayRollBack, "lastCommitMayRollBack"), (.noSync, "noSync"),
    ]

    // One level after the other: each run is a stream of helper processes, and three at once
    // starve the rest of the suite on a small machine.
    @Test(.serialized, .hangGuard, arguments: levels)
    func everyAcknowledgementSurvivesSIGKILLAndTheLogStaysWhole(durability: Durability, name: String) async throws {
        let fixture = try EngineFixture(snapshotInterval: Self.snapshotInterval)
        defer { fixture.remove() }
        var random = SeededRandom(seed: 0x5EED_0009)
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(50)
        var acknowledged: [Acknowledgement] = []
        var largestBatch = 0
        var kills = 0
        var killedBeforeFirstAck = 0
        for round in 0..<24 {
            if clock.now > deadline && kills >= 20 { break }
            let child = try HelperProcess([
                CrashModeArguments.mode, fixture.directory.path, String(round), "4", "3",
                String(Self.snapshotInterval), name,
            ])
            // Mostly mid-stream (after the first acknowledgement), sometimes during start-up
            // (opening the store, catching up projections, resuming sessions).
            if random.chance(0.2) {
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...40, using: &random)))
            } else {
                _ = try await child.waitForLine { $0.hasPrefix("ack ") }
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...250, using: &random)))
            }
            child.kill()
            let status = try await child.waitForExit()
            let lines = child.lines
            #expect(
                status.reason == .uncaughtSignal && status.code == SIGKILL,
                "round \(round): the helper ended on its own (\(status)): \(lines.suffix(3))")
            let acks = lines.compactMap(Acknowledgement.init)
            if acks.isEmpty { killedBeforeFirstAck += 1 }
            #expect(acks.allSatisfy { $0.round == round })
            acknowledged += acks
            for line in lines where line.hasPrefix("stats ") {
                largestBatch = max(largestBatch, Int(line.split(separator: " ").last ?? "") ?? 0)
            }
            kills += 1
            try verify(fixture, acknowledged: acknowledged, after: "\(name): kill \(kills) (round \(round))")
        }
        print(
            "crash (\(name)): \(kills) kills (\(killedBeforeFirstAck) before any acknowledgement), \(acknowledged.count) acknowledged sends, largest group commit \(largestBatch)"
        )
        #expect(kills >= 20)
        #expect(acknowledged.count > kills, "too few acknowledgements to prove anything")
        // Commits that flush gather their senders; unflushed ones are too quick to batch reliably.
        if durability != .noSync { #expect(largestBatch > 1, "group commit never batched two appends") }
    }

    /// Reopens the store and checks promises 1 and 2 against everything acknowledged so far.
    func verify(_ fixture: EngineFixture, acknowledged: [Acknowledgement], after moment: String) throws {
        var configuration = EngineConfiguration(durability: .durable, snapshotInterval: Self.snapshotInterval)
        // Registered inline: opening the engine catches them up from their stored checkpoints.
        configuration.projections = [ScreenFlowProjection(), NavigationProjection()]
        let engine = try Engine(directory: fixture.directory.path, configuration: configuration)
        defer { engine.close() }
        try engine.register(try TickerMachine.machine())

        // Every record decodes (its checksum verifies); sequence gap-free, versions contiguous.
        let audit = try LogAudit(engine.writableStore)
        #expect(audit.problems.isEmpty, "\(moment): \(audit.problems.prefix(5))")

        // Every acknowledged send is there, where it was acknowledged, with its payload.
        let coder = JSONPayloadCoder()
        for ack in acknowledged {
            guard ack.sequence >= 1, ack.sequence <= UInt64(audit.records.count) else {
                Issue.record("\(moment): acknowledged \(ack.session)@\(ack.version) (sequence \(ack.sequence)) is lost")
                continue
            }
            let record = audit.records[Int(ack.sequence - 1)]
            #expect(
                record.session.rawValue == ack.session && record.version == ack.version,
                "\(moment): sequence \(ack.sequence) holds \(record.session)@\(record.version), acknowledged as \(ack.session)@\(ack.version)"
            )
            let payload = try coder.decode(JSONValue.self, from: record.payload)
            #expect(
                payload["round"]?.doubleValue == Double(ack.round) && payload["n"]?.doubleValue == Double(ack.n),
                "\(moment): \(ack.session)@\(ack.version) has payload \(payload)")
        }

        // Every session resumes (latest snapshot + the records after it) at its head.
        for info in try engine.sessions() {
            let session = try engine.session(info.session)
            #expect(session.version == info.headVersion, "\(moment): \(info.session)")
        }

        // Projections caught up from their checkpoints equal a rebuild from the first record.
        let head = try engine.store.headSequence()
        let flows = try engine.reader(for: ScreenFlowProjection()).states()
        let stacks = try engine.reader(for: NavigationProjection()).states()
        for name in [ScreenFlowProjection().name, NavigationProjection().name] {
            let status = try #require(try engine.projectionStatus(named: name))
            #expect(status.checkpoint == head && status.failure == nil, "\(moment): \(name) \(status)")
        }
        try engine.rebuildProjection(named: ScreenFlowProjection().name)
        try engine.rebuildProjection(named: NavigationProjection().name)
        #expect(try engine.reader(for: ScreenFlowProjection()).states() == flows, "\(moment): screen flows")
        #expect(try engine.reader(for: NavigationProjection()).states() == stacks, "\(moment): navigation stacks")
        #expect(flows.count == (try engine.sessions()).count)
    }
}

/// The crash helper's command line (see `Tests/RewindTestHelper/CrashMode.swift`).
enum CrashModeArguments {
    static let mode = "crash"
}

import Dispatch
import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// Observing the projections' stored states and checking them against a reference fold and the model.
extension ProjectionFuzz {
    // MARK: Observing
    static func observe(
        store: TransitionStore, watched: [(String, ProjectionKind)], context: String
    ) throws -> [ProjectionObservation] {
        try store.read { transaction in
            let head = try transaction.headSequence()
            var observations: [ProjectionObservation] = []
            for (name, kind) in watched {
                guard let status = try ProjectionRegistry.status(of: name, in: transaction) else { continue }
                let prefix = ProjectionKeys.prefix(name)
                var states: [[UInt8]: [UInt8]] = [:]
                try transaction.forEach(in: .projections, from: prefix) { key, value in
                    guard key.starts(with: prefix) else { return .stop }
                    states[Array(key.dropFirst(prefix.count))] = Array(value)
                    return .next
                }
                observations.append(
                    ProjectionObservation(
                        name: name, kind: kind, checkpoint: status.checkpoint, head: head,
                        failed: status.failure != nil,
                        states: states, exact: true, context: context))
            }
            return observations
        }
    }

    /// `sf.inline` and `nav.inline` read through the public ``ProjectionReader`` (each call its
    /// own transaction), re-encoded.
    static func observePublicReader(store: TransitionStore, context: String) throws -> [ProjectionObservation] {
        var flows: [[UInt8]: [UInt8]] = [:]
        try ProjectionReader(store: store, projection: ScreenFlowProjection(name: "sf.inline")).forEachState {
            key, flow in
            var bytes: [UInt8] = []
            ScreenFlowProjection().encode(flow, into: &bytes)
            flows[Array(key.utf8)] = bytes
            return .next
        }
        var stacks: [[UInt8]: [UInt8]] = [:]
        try ProjectionReader(store: store, projection: NavigationProjection(name: "nav.inline")).forEachState {
            key, stack in
            var bytes: [UInt8] = []
            try NavigationProjection().encode(stack, into: &bytes)
            stacks[Array(key.utf8)] = bytes
            return .next
        }
        var dictionary: [[UInt8]: [UInt8]] = [:]
        for (key, flow) in try ProjectionReader(store: store, projection: ScreenFlowProjection(name: "sf.inline"))
            .states()
        {
            var bytes: [UInt8] = []
            ScreenFlowProjection().encode(flow, into: &bytes)
            dictionary[Array(key.rawValue.utf8)] = bytes
        }
        let head = try store.headSequence()
        return [
            ProjectionObservation(
                name: "sf.inline", kind: .screenFlow, checkpoint: 0, head: head, failed: false, states: dictionary,
                exact: false, context: context + " states()"),
            ProjectionObservation(
                name: "sf.inline", kind: .screenFlow, checkpoint: 0, head: head, failed: false, states: flows,
                exact: false, context: context),
            ProjectionObservation(
                name: "nav.inline", kind: .navigation, checkpoint: 0, head: head, failed: false, states: stacks,
                exact: false, context: context),
        ]
    }

    // MARK: Checking

    func check() async throws {
        let head = try engine.store.headSequence()
        let watched = slots.map { ($0.name, $0.kind) }
        let before = try Self.observe(
            store: engine.writableStore, watched: watched, context: context + " (before catch-up)")
        pending += before
        for observation in before {
            guard let slot = slots.first(where: { $0.name == observation.name }) else { continue }
            if slot.registered, slot.mode == .inline, !observation.failed, !externalPending,
                observation.checkpoint != head
            {
                fail("inline projection \(slot.name) is at \(observation.checkpoint), the log at \(head)")
            }
        }
        for slot in slots { slot.fault?.failAt.withValue { $0 = nil } }
        try engine.catchUpProjections()
        let after = try Self.observe(store: engine.writableStore, watched: watched, context: context + " (caught up)")
        pending += after
        for slot in slots where slot.registered {
            guard let observation = after.first(where: { $0.name == slot.name }) else {
                fail("registered projection \(slot.name) has no checkpoint")
                continue
            }
            if observation.checkpoint != head || observation.failed {
                fail(
                    "\(slot.name) caught up to \(observation.checkpoint) (failed: \(observation.failed)), the log is at \(head)"
                )
            }
        }
        // Every way of arriving at the head gives the same bytes.
        for kind in [ProjectionKind.screenFlow, .navigation] {
            let atHead = after.filter { $0.kind == kind && $0.checkpoint == head }
            for observation in atHead.dropFirst() where observation.states != atHead[0].states {
                fail(
                    "\(observation.name) differs from \(atHead[0].name) at the head \(head): "
                        + Self.difference(observation.states, atHead[0].states))
            }
        }
        if random.chance(0.3) {
            // A rebuild from scratch stores the same bytes and checkpoints.
            let states = try ProjectionFixtures.entries(of: engine.writableStore, in: .projections)
            let checkpoints = try ProjectionFixtures.entries(of: engine.writableStore, in: .checkpoints)
            for slot in slots where slot.registered { try engine.rebuildProjection(named: slot.name) }
            let rebuilt = try ProjectionFixtures.entries(of: engine.writableStore, in: .projections)
            if rebuilt != states { fail("rebuilding changed the stored states: " + Self.difference(rebuilt, states)) }
            if try ProjectionFixtures.entries(of: engine.writableStore, in: .checkpoints) != checkpoints {
                fail("rebuilding changed the checkpoints")
            }
        }
        // The live sessions' snapshots are the model's last entries.
        for model in sessions {
            guard let live = model.live else { continue }
            let snapshot = live.snapshot
            if snapshot.version != UInt64(model.history.count) {
                fail("\(model.id) is at version \(snapshot.version), the model at \(model.history.count)")
            }
        }
        count("observations.exact", pending.filter(\.exact).count)
        count("observations.public", pending.filter { !$0.exact }.count)
        count("observations.lagging", pending.filter { $0.exact && $0.checkpoint < $0.head }.count)
        count("observations.failed", pending.filter(\.failed).count)
        try await timed("verify") { try verify() }
        pending.removeAll()
    }

    static func difference(_ left: [[UInt8]: [UInt8]], _ right: [[UInt8]: [UInt8]]) -> String {
        let keys = Set(left.keys).union(right.keys).filter { left[$0] != right[$0] }
        return keys.prefix(4).map { key in
            "\(String(decoding: key, as: UTF8.self)): \(left[key].map { "\($0.count) bytes" } ?? "absent") vs "
                + "\(right[key].map { "\($0.count) bytes" } ?? "absent")"
        }.joined(separator: "; ") + " (\(keys.count) keys differ)"
    }

    /// FNV-1a over a state's key and bytes; a projection's hash is the (wrapping) sum over its states.
    static func hash(_ key: [UInt8], _ value: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in key { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        hash = (hash ^ 0xFF) &* 0x100_0000_01B3
        for byte in value { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return hash
    }

    static func hash(_ states: [[UInt8]: [UInt8]]) -> UInt64 {
        states.reduce(0) { $0 &+ hash($1.key, $1.value) }
    }

    /// Folds the log from its first record with the projections' own `apply` (the reference),
    /// checks it against the model at every record, and every pending observation against the
    /// reference at its checkpoint (exact reads) or at some prefix (public reads).
    func verify() throws {
        let records = try engine.store.records(from: 1)
        let flowProjection = ScreenFlowProjection()
        let navigationProjection = NavigationProjection()
        var flows: [[UInt8]: ScreenFlowProjection.Flow] = [:]
        var stacks: [[UInt8]: NavigationProjection.SessionNavigation] = [:]
        var flowBytes: [[UInt8]: [UInt8]] = [:]
        var stackBytes: [[UInt8]: [UInt8]] = [:]
        var flowHash: UInt64 = 0
        var stackHash: UInt64 = 0
        var flowHashes: Set<UInt64> = [0]
        var stackHashes: Set<UInt64> = [0]
        let models = Dictionary(sessions.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        var reached: [[UInt8]: (set: Set<String>, known: Bool)] = [:]
        var exact: [UInt64: [ProjectionObservation]] = [:]
        for observation in pending where observation.exact {
            if observation.checkpoint > observation.head {
                fail(
                    "\(observation.name) checkpoint \(observation.checkpoint) is ahead of the log's head \(observation.head) (\(observation.context))"
                )
            }
            exact[observation.checkpoint, default: []].append(observation)
        }
        func compare(at sequence: UInt64) {
            for observation in exact[sequence] ?? [] {
                let reference = observation.kind == .screenFlow ? flowBytes : stackBytes
                if observation.states != reference {
                    fail(
                        "\(observation.name) at checkpoint \(sequence) (\(observation.context)) is not the reference fold: "
                            + Self.difference(observation.states, reference))
                }
            }
        }
        compare(at: 0)
        for (index, record) in records.enumerated() {
            let sequence = record.sequence
            guard sequence == UInt64(index + 1) else {
                fail("record \(index + 1) has sequence \(sequence)")
                return
            }
            let key = Array(record.session.rawValue.utf8)
            if let old = flowBytes[key] { flowHash &-= Self.hash(key, old) }
            if let old = stackBytes[key] { stackHash &-= Self.hash(key, old) }
            flowProjection.apply(record, to: &flows[key])
            try navigationProjection.apply(record, to: &stacks[key])
            var bytes: [UInt8] = []
            flowProjection.encode(flows[key]!, into: &bytes)
            flowBytes[key] = bytes
            flowHash &+= Self.hash(key, bytes)
            bytes = []
            try navigationProjection.encode(stacks[key]!, into: &bytes)
            stackBytes[key] = bytes
            stackHash &+= Self.hash(key, bytes)
            flowHashes.insert(flowHash)
            stackHashes.insert(stackHash)
            compare(at: sequence)

            // The reference against the model of the sessions' snapshots.
            guard let model = models[key] else {
                fail("record \(sequence) belongs to \(record.session), unknown to the model")
                continue
            }
            let version = Int(record.version)
            guard version >= 1, version <= model.history.count else {
                fail("record \(sequence) is version \(version) of \(model.id), the model has \(model.history.count)")
                continue
            }
            let entry = model.history[version - 1]
            let flow = flows[key]!
            var problems: [String] = []
            if flow.machine != model.machine { problems.append("machine \(flow.machine) ≠ \(model.machine)") }
            if flow.version != record.version { problems.append("version \(flow.version) ≠ \(record.version)") }
            if let configuration = entry.configuration, flow.configuration != configuration {
                problems.append("configuration \(flow.configuration) ≠ \(configuration)")
            }
            if let event = entry.event, flow.lastEvent != event {
                problems.append("last event \(flow.lastEvent) ≠ \(event)")
            }
            if let timestamp = entry.timestamp, flow.updated != timestamp {
                problems.append("time \(flow.updated) ≠ \(timestamp)")
            }
            var seen = reached[key] ?? (set: [], known: true)
            if let configuration = entry.configuration { seen.set.formUnion(configuration) } else { seen.known = false }
            reached[key] = seen
            if seen.known, flow.reached != seen.set.sorted() {
                problems.append("reached \(flow.reached) ≠ \(seen.set.sorted())")
            }
            if let navigation = entry.navigation, stacks[key]?.stack != navigation {
                problems.append("stack \(stacks[key]?.stack.screens ?? []) ≠ \(navigation.screens)")
            }
            if !problems.isEmpty {
                fail(
                    "record \(sequence) (\(model.id) v\(version), \(record.event)) disagrees with the model: "
                        + problems.joined(separator: ", "))
            }
        }
        let head = UInt64(records.count)
        for (checkpoint, observations) in exact where checkpoint > head {
            for observation in observations {
                fail(
                    "\(observation.name) checkpoint \(checkpoint) is beyond the log (\(head)) (\(observation.context))")
            }
        }
        for model in sessions where flows[model.key]?.version ?? 0 != UInt64(model.history.count) {
            fail(
                "\(model.id): the log holds \(flows[model.key]?.version ?? 0) versions, the model \(model.history.count)"
            )
        }
        for observation in pending where !observation.exact {
            let hashes = observation.kind == .screenFlow ? flowHashes : stackHashes
            if !hashes.contains(Self.hash(observation.states)) {
                fail(
                    "\(observation.name) read through ProjectionReader (\(observation.context)) matches no prefix of the log"
                )
            }
        }
    }
}

import Dispatch
import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// Catch-ups every way there is: small batches, aborted by a close, interleaved, on another thread.
extension ProjectionFuzz {
    /// The projection to catch up on another thread while sessions append: preferably one that
    /// lags (failed, or not caught up) or one due to be registered (added here, caught up there),
    /// so that inline runs and catch-up batches interleave; its fault disarmed half the time.
    func concurrentCatchUpSlot() throws -> ProjectionSlot? {
        let head = try engine.store.headSequence()
        var candidates: [ProjectionSlot] = []
        for slot in slots {
            if slot.registered {
                let status = try engine.projectionStatus(named: slot.name)
                if (status?.checkpoint ?? 0) < head || status?.failure != nil { candidates.append(slot) }
            } else if !slot.fromStart, slot.registerAt <= step + 10 {
                candidates.append(slot)
            }
        }
        guard !candidates.isEmpty, random.chance(0.8) else { return randomRegisteredSlot() }
        let slot = candidates[Int.random(in: 0..<candidates.count, using: &random)]
        if random.chance(0.5) { slot.fault?.failAt.withValue { $0 = nil } }
        if !slot.registered {
            if slot.name != "sf.catchup" { slot.mode = random.chance(0.7) ? .inline : .catchUp }
            try engine.projections.add(slot.projection.runner(mode: slot.mode))
            slot.registered = true
            count("registeredConcurrently")
        }
        count("concurrentCatchUp")
        return slot
    }

    func randomRegisteredSlot() -> ProjectionSlot? {
        let registered = slots.filter(\.registered)
        guard !registered.isEmpty else { return nil }
        return registered[Int.random(in: 0..<registered.count, using: &random)]
    }

    func armFault() {
        let faulty = slots.filter { $0.fault != nil }
        let slot = faulty[Int.random(in: 0..<faulty.count, using: &random)]
        guard let fault = slot.fault else { return }
        let head = (try? engine.store.headSequence()) ?? 0
        if fault.failAt.current != nil, random.chance(0.5) {
            fault.failAt.withValue { $0 = nil }
        } else if head > 0, random.chance(0.4) {
            fault.failAt.withValue { $0 = UInt64.random(in: 1...head, using: &random) }  // hits a rebuild
        } else {
            fault.failAt.withValue { $0 = head + UInt64.random(in: 1...6, using: &random) }  // hits inline runs
        }
    }

    /// Catches `slot` up in batches of 1…5 records.
    func catchUpSmall(slot: ProjectionSlot?) throws {
        guard let slot, let runner = engine.projections.runner(named: slot.name) else { return }
        let batchSize = Int.random(in: 1...5, using: &random)
        do {
            try engine.projections.catchUp(runner, store: engine.writableStore, batchSize: batchSize) { _ in }
        } catch {
            guard isInjected(error) else { throw error }
        }
    }

    /// A crash-like abort: the engine closes after the first batch of a catch-up (or of a rebuild
    /// done by hand in small batches), then it is reopened.
    func abortedCatchUp() throws {
        guard let slot = randomRegisteredSlot(), let runner = engine.projections.runner(named: slot.name) else {
            return
        }
        let engine = self.engine
        if random.chance(0.5) {
            try engine.writableStore.write { transaction in
                try ProjectionRegistry.removeStates(of: slot.name, in: transaction)
                try transaction.delete(Array(slot.name.utf8), in: .checkpoints)
            }
        }
        let batchSize = Int.random(in: 1...4, using: &random)
        var closed = false
        do {
            try engine.projections.catchUp(runner, store: engine.writableStore, batchSize: batchSize) { _ in
                if !closed {
                    closed = true
                    engine.close()
                }
            }
        } catch {
            // The store closed under it (or an injected fault): nothing to check but the aftermath.
            count("abort.threw")
        }
        if !closed { engine.close() }
        try reopen(alreadyClosed: true)
    }

    /// Two catch-ups of one projection interleaved: between two batches of a rebuild (states
    /// and checkpoint deleted by hand), another catch-up of it runs from the first one's
    /// checkpoint and stops on an injected fault a few records further; the first then goes on
    /// from there.
    func interleavedCatchUps() throws {
        let faulty = slots.filter { $0.registered && $0.fault != nil }
        guard !faulty.isEmpty else { return }
        let slot = faulty[Int.random(in: 0..<faulty.count, using: &random)]
        guard let fault = slot.fault, let runner = engine.projections.runner(named: slot.name) else { return }
        let head = try engine.store.headSequence()
        guard head > 8 else { return }
        try engine.writableStore.write { transaction in
            try ProjectionRegistry.removeStates(of: slot.name, in: transaction)
            try transaction.delete(Array(slot.name.utf8), in: .checkpoints)
        }
        fault.failAt.withValue { $0 = nil }
        let engine = self.engine
        let firstBatch = Int.random(in: 1...3, using: &random)
        let secondBatch = Int.random(in: 1...3, using: &random)
        let stopAfter = UInt64.random(in: 2...6, using: &random)
        var interleaved = false
        var unexpected: (any Error)?
        do {
            try engine.projections.catchUp(runner, store: engine.writableStore, batchSize: firstBatch) { progress in
                guard !interleaved, progress.recordsDone > 0 else { return }
                interleaved = true
                let checkpoint = (try? engine.projectionStatus(named: runner.name)?.checkpoint) ?? 0
                fault.failAt.withValue { $0 = checkpoint + stopAfter }
                do {
                    try engine.projections.catchUp(runner, store: engine.writableStore, batchSize: secondBatch) { _ in }
                } catch {
                    if !isInjected(error) { unexpected = error }
                }
                fault.failAt.withValue { $0 = nil }
            }
        } catch {
            if !isInjected(error) { unexpected = error }
        }
        if let unexpected { fail("interleaved catch-ups of \(slot.name) threw \(unexpected)") }
    }
}

import Dispatch
import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// Writers: another store handle appending behind the engine's back, forks and imports, and
/// concurrent requests on the engine (group commits) while readers and catch-ups run.
extension ProjectionFuzz {
    /// Another writer (another store handle, as another process would) appends records of its
    /// own sessions behind the engine's back: inline projections fold them before the engine's
    /// next commit.
    func externalAppend() throws {
        var configuration = StoreConfiguration()
        configuration.environment.options.insert(.noSync)
        let store = try TransitionStore(directory: directory.path, configuration: configuration)
        defer { store.close() }
        let screens = ["home", "list", "detail", "settings"]
        func screen() -> String { screens[Int.random(in: 0..<screens.count, using: &random)] }
        var planned: [(model: ModelSession, transitions: [TransitionDraft])] = []
        for _ in 0..<Int.random(in: 1...2, using: &random) {
            let external = sessions.filter(\.external)
            let model: ModelSession
            if external.isEmpty || random.chance(0.3) {
                nextSessionNumber += 1
                model = ModelSession(id: try SessionID("ext-\(nextSessionNumber)"), machine: "bulk", external: true)
                sessions.append(model)
            } else {
                model = external[Int.random(in: 0..<external.count, using: &random)]
            }
            guard !planned.contains(where: { $0.model === model }) else { continue }
            var stack = model.history.last?.navigation ?? ScreenStack()
            var transitions: [TransitionDraft] = []
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let operations: [NavigationOperation] = (0..<Int.random(in: 0...2, using: &random)).map { _ in
                    switch Int.random(in: 0..<6, using: &random) {
                    case 0: .push(screen())
                    case 1: .pop
                    case 2: .popToRoot
                    case 3: .popTo(screen())
                    case 4: .replace(screen())
                    default: .setRoot(screen())
                    }
                }
                let target = screen()
                let event = "go-\(target)"
                let time = Int64(model.history.count + transitions.count)
                transitions.append(
                    ProjectionFixtures.transition(event: event, to: target, navigation: operations, at: time))
                stack.apply(operations)
                model.history.append(
                    ModelSession.Entry(
                        configuration: [target], event: event, navigation: stack,
                        timestamp: Timestamp(microsecondsSince1970: time)))
            }
            planned.append((model, transitions))
        }
        try store.write { transaction in
            for (model, transitions) in planned { try transaction.append(transitions, to: model.id) }
        }
        externalPending = true
    }

    func forkOrImport() async throws {
        let candidates = sessions.filter { !$0.history.isEmpty && !$0.external }
        guard !candidates.isEmpty else { return }
        let source = candidates[Int.random(in: 0..<candidates.count, using: &random)]
        let id = try newSessionID()
        if random.chance(0.5) {
            let version = UInt64.random(in: 1...UInt64(source.history.count), using: &random)
            try await engine.fork(source.id, at: version, as: id)
            externalPending = false
            sessions.append(
                ModelSession(id: id, machine: source.machine, history: Array(source.history.prefix(Int(version)))))
        } else {
            let archive = try engine.exportSession(source.id)
            try await engine.importSession(archive, as: id)
            externalPending = false
            sessions.append(ModelSession(id: id, machine: source.machine, history: source.history))
        }
    }

    /// 1–4 requests on distinct sessions at once (group commits), while a reader thread reads the
    /// projections and, maybe, another thread catches one up in small batches.
    func operations(concurrentCatchUp: ProjectionSlot?) async throws {
        var planned: [(model: ModelSession, request: Request, session: Session?)] = []
        var used: Set<[UInt8]> = []
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            if sessions.count < 3 || (sessions.count < 24 && random.chance(0.15)) {
                let machine = machines[Int.random(in: 0..<machines.count, using: &random)]
                let id = try newSessionID()
                guard !sessions.contains(where: { $0.key == Array(id.rawValue.utf8) }) else { continue }
                let model = ModelSession(id: id, machine: machine.name)
                sessions.append(model)
                used.insert(model.key)
                planned.append((model, .start(machine), nil))
                continue
            }
            let model = sessions[Int.random(in: 0..<sessions.count, using: &random)]
            guard !model.history.isEmpty, !model.external, used.insert(model.key).inserted else { continue }
            let machine = machine(named: model.machine)
            let session = try liveSession(model)
            let request: Request
            switch Double.random(in: 0..<1, using: &random) {
            case ..<0.65: request = .send(randomEvent(of: machine, in: session.state))
            case ..<0.85:
                var states = machine.enterStates
                if random.chance(0.75) {
                    let valid = states.filter { session.canEnter($0) }
                    if !valid.isEmpty { states = valid }
                }
                let state = states[Int.random(in: 0..<states.count, using: &random)]
                request = .enter(state, random.chance(0.5) ? randomPayload() : .null)
            default:
                var state = session.state
                var events: [Event] = []
                for _ in 0..<Int.random(in: 2...4, using: &random) {
                    let event = randomEvent(of: machine, in: state, inBatch: true)
                    events.append(event)
                    if let step = try? machine.machine.send(event, in: state) { state = step.state }
                }
                request = .batch(events)
            }
            planned.append((model, request, session))
        }
        guard !planned.isEmpty || concurrentCatchUp != nil else { return }  // an added runner is caught up

        let store = engine.writableStore
        let watched = slots.map { ($0.name, $0.kind) }
        let context = self.context
        let stop = LockedBox(false)
        let observations = LockedBox<[ProjectionObservation]>([])
        let readerDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var seen: Set<String> = []
            while !stop.current {
                if let read = try? ProjectionFuzz.observe(
                    store: store, watched: watched, context: context + " (concurrent)")
                {
                    for observation in read where seen.insert("\(observation.name) \(observation.checkpoint)").inserted
                    {
                        observations.append(observation)
                    }
                }
                if let read = try? ProjectionFuzz.observePublicReader(
                    store: store, context: context + " (public reader)")
                {
                    observations.withValue { $0.append(contentsOf: read) }
                }
                usleep(1_500)
            }
            readerDone.signal()
        }
        let catchUpDone = DispatchSemaphore(value: 0)
        let catchUpError = LockedBox<(any Error)?>(nil)
        var catchingUp = 0
        if let slot = concurrentCatchUp, let runner = engine.projections.runner(named: slot.name) {
            // Sometimes two threads catch the same projection up at once (two callers of
            // `catchUpProjections`), in batches of different sizes.
            catchingUp = random.chance(0.3) ? 2 : 1
            if catchingUp == 2 { count("concurrentCatchUp.twice") }
            for _ in 0..<catchingUp {
                let engine = self.engine
                let batchSize = Int.random(in: 1...3, using: &random)
                Thread.detachNewThread {
                    do {
                        try engine.projections.catchUp(runner, store: engine.writableStore, batchSize: batchSize) { _ in
                        }
                    } catch {
                        catchUpError.withValue { $0 = $0 ?? error }
                    }
                    catchUpDone.signal()
                }
            }
        }

        let engine = self.engine
        let outcomes = await withTaskGroup(of: (Int, Session?, Result<[Step], any Error>).self) { group in
            for (index, plan) in planned.enumerated() {
                let request = plan.request
                let existing = plan.session
                let id = plan.model.id
                group.addTask {
                    do {
                        switch request {
                        case .start(let machine):
                            let session: Session
                            if case .start(let context) = machine.opening {
                                session = try await engine.startSession(id: id, machine: machine.name, context: context)
                            } else {
                                session = try engine.makeSession(id: id, machine: machine.name)
                                try await session.run(machine.opening)
                            }
                            return (index, session, .success([]))
                        case .send(let event):
                            guard let existing else { return (index, nil, .success([])) }
                            return (index, existing, .success([try await existing.send(event)]))
                        case .enter(let state, let data):
                            guard let existing else { return (index, nil, .success([])) }
                            return (index, existing, .success([try await existing.enter(state, data: data)]))
                        case .batch(let events):
                            guard let existing else { return (index, nil, .success([])) }
                            return (index, existing, .success(try await existing.send(contentsOf: events)))
                        }
                    } catch {
                        return (index, existing, .failure(error))
                    }
                }
            }
            var outcomes: [(Int, Session?, Result<[Step], any Error>)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes.sorted { $0.0 < $1.0 }
        }
        if catchingUp > 0 {
            for _ in 0..<catchingUp { catchUpDone.wait() }
            if let error = catchUpError.current, !isInjected(error) { fail("concurrent catch-up threw \(error)") }
        }
        stop.withValue { $0 = true }
        readerDone.wait()
        pending += observations.current

        for (index, session, result) in outcomes {
            let (model, request, _) = planned[index]
            if case .failure = result { count("request.refused") } else { count("request.ok") }
            guard let session else {
                if case .failure(let error) = result { fail("starting \(model.id) (\(model.machine)) threw \(error)") }
                sessions.removeAll { $0 === model && $0.history.isEmpty }
                continue
            }
            model.live = session
            record(request, result: result, of: model, session: session)
        }
    }

    /// Updates the model from the session's live snapshot after `request`.
    func record(_ request: Request, result: Result<[Step], any Error>, of model: ModelSession, session: Session) {
        let snapshot = session.snapshot
        let before = UInt64(model.history.count)
        guard snapshot.version >= before else {
            fail("\(model.id) went back from version \(before) to \(snapshot.version)")
            return
        }
        let added = Int(snapshot.version - before)
        if case .failure(let error) = result, added != 0 {
            fail("\(model.id): \(request) threw \(error) but wrote \(added) records")
        }
        guard added > 0 else { return }
        externalPending = false
        var entries = Array(repeating: ModelSession.Entry(), count: added)
        if case .success(let steps) = result, case .batch(let events) = request, steps.count == added,
            events.count == added
        {
            for (index, step) in steps.enumerated() {
                entries[index].configuration = step.state.configuration
                entries[index].event = events[index].name
            }
        } else if added == 1 {
            entries[0].event = request.eventName
        }
        entries[added - 1].configuration = snapshot.state.configuration
        entries[added - 1].navigation = snapshot.navigation
        entries[added - 1].timestamp = snapshot.timestamp
        model.history += entries
    }
}

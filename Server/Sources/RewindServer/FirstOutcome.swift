import Synchronization

/// The outcome of `work`, or the first error an interruption delivers, whichever comes first.
///
/// `interruption` is called once before `work` starts, with a function that ends the wait with an
/// error (a connection that closed, the database gone, a deadline); it returns what to do when the
/// wait is over (unregister). `work` runs in a task of its own, cancelled when the caller is; when
/// the interruption wins, nothing waits for `work` (a statement postgres-nio never answers leaves
/// that task waiting, not the caller).
///
/// `late` gets what `work` returns after the interruption won (a connection to close): nothing else
/// holds it then.
func firstOutcome<R: Sendable>(
    of work: @escaping @Sendable () async throws -> R,
    late: @escaping @Sendable (R) async -> Void = { _ in },
    interruptedBy interruption: (@escaping @Sendable (any Error) -> Void) -> (@Sendable () -> Void)
) async throws -> R {
    let race = FirstOutcome<R>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
            race.start(continuation)
            let unregister = interruption { error in race.finish(.failure(error)) }
            race.run(late: late) {
                defer { unregister() }
                return try await work()
            }
        }
    } onCancel: {
        race.cancel()
    }
}

/// The outcome of `work`, or `error` once `limit` has passed (nothing waits for `work` then;
/// `late` gets what it returns after that).
func withTimeLimit<R: Sendable>(
    _ limit: Duration, _ error: @autoclosure @escaping @Sendable () -> any Error,
    late: @escaping @Sendable (R) async -> Void = { _ in },
    _ work: @escaping @Sendable () async throws -> R
) async throws -> R {
    try await firstOutcome(of: work, late: late) { interrupt in
        let timer = Task {
            try await Task.sleep(for: limit)
            interrupt(error())
        }
        return { timer.cancel() }
    }
}

/// The first of a piece of work's outcome and an interruption, delivered once.
final class FirstOutcome<R: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<R, any Error>?
        var task: Task<Void, Never>?
        var cancelled = false
    }

    private let state = Mutex(State())

    /// The caller to resume.
    func start(_ continuation: CheckedContinuation<R, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Runs `work` in a task of its own; its outcome resumes the caller unless something else
    /// did first, in which case a value it returns goes to `late`.
    func run(late: @escaping @Sendable (R) async -> Void, _ work: @escaping @Sendable () async throws -> R) {
        let task = Task {
            do {
                let value = try await work()
                if !finish(.success(value)) { await late(value) }
            } catch {
                finish(.failure(error))
            }
        }
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    /// Resumes the caller with `outcome` if nothing did before; whether it did.
    @discardableResult
    func finish(_ outcome: Result<R, any Error>) -> Bool {
        let continuation = state.withLock { state in
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: outcome)
        return continuation != nil
    }

    /// Cancels the work (the caller was cancelled); its outcome still resumes the caller.
    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}

import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// Whether PostgreSQL answers, as the server's probe last saw it.
public enum DatabaseStatus: Sendable, Equatable {
    /// The probe's connection runs statements.
    case available
    /// The probe could not connect (other than PostgreSQL saying it has too many clients), a
    /// statement failed, its connection closed, or it got no answer
    /// ``OutagePolicy/probeAttempts`` times in a row.
    case unavailable
}

/// The database does not answer (PostgreSQL stopped, restarting or unreachable): a 503 with
/// `Retry-After`, never a wait.
struct DatabaseUnavailable: Error, CustomStringConvertible {
    var description: String { "the database does not answer" }
}

/// The server's view of PostgreSQL's availability, kept by a probe of its own (see
/// ``OutagePolicy``): requests check it before they touch the database
/// (``DatabaseOutageMiddleware``), so none waits for a database that is gone.
final class DatabaseAvailability: Sendable {
    let policy: OutagePolicy

    private struct State {
        var status: DatabaseStatus = .available
        /// False once the probe has stopped (its own connection's close is no outage).
        var probing = true
        /// The callers of ``untilAvailable()`` waiting, by number.
        var waiting: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// The numbers of waits cancelled before they began.
        var cancelled: Set<UInt64> = []
        var lastWait: UInt64 = 0
    }

    private let state = Mutex(State())
    private let changed: @Sendable (DatabaseStatus) -> Void

    /// Availability under `policy`; `changed` is called with each new status once it is in force.
    init(policy: OutagePolicy, changed: @escaping @Sendable (DatabaseStatus) -> Void = { _ in }) {
        self.policy = policy
        self.changed = changed
    }

    /// The status now.
    var status: DatabaseStatus { state.withLock { $0.status } }

    /// Marks the database unavailable (requests are refused from now on); returns whether it was
    /// available.
    @discardableResult
    func markUnavailable() -> Bool {
        let changes = state.withLock { state in
            guard state.probing, state.status == .available else { return false }
            state.status = .unavailable
            return true
        }
        guard changes else { return false }
        changed(.unavailable)
        return true
    }

    private func markAvailable() {
        let waiting = state.withLock { state in
            state.status = .available
            defer { state.waiting = [:] }
            return state.waiting.values
        }
        for continuation in waiting { continuation.resume() }
        changed(.available)
    }

    /// Returns once the database is available (at once when it is), or when the caller is
    /// cancelled: an event, never a clock.
    func untilAvailable() async {
        let number = state.withLock { state in
            state.lastWait += 1
            return state.lastWait
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.status == .available || state.cancelled.remove(number) != nil { return true }
                    state.waiting[number] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { state in
                guard let continuation = state.waiting.removeValue(forKey: number) else {
                    state.cancelled.insert(number)
                    return nil as CheckedContinuation<Void, Never>?
                }
                return continuation
            }
            continuation?.resume()
        }
    }

    /// Probes `database` until cancelled. `prepare` runs at each change: before requests are let
    /// through again (the caller gives them a fresh connection pool), and after they are refused
    /// (the caller drops the pool that waits on the database).
    func probe(
        _ database: DatabaseURL, logger: Logger, prepare: @escaping @Sendable (DatabaseStatus) async -> Void
    ) async {
        let configuration = database.connectionConfiguration(connectTimeout: policy.probeTimeout)
        let limit = policy.probeTimeout
        var published = DatabaseStatus.available
        var number = 0
        // Consecutive probes without an answer (a slow machine, or a silent database).
        var misses = 0
        defer { state.withLock { $0.probing = false } }
        while !Task.isCancelled {
            number += 1
            var connection: PostgresConnection?
            let abandonment = Abandonment()
            do {
                let id = number
                // A connection that comes after the time limit is closed: postgres-nio asserts that
                // none is dropped open.
                let connected = try await withTimeLimit(
                    limit, ProbeTimedOut(limit: limit), late: { late in try? await late.close() }
                ) {
                    try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
                }
                connection = connected
                if published == .unavailable {
                    await prepare(.available)
                    markAvailable()
                    published = .available
                    logger.notice("the database answers again: serving")
                }
                // A connection PostgreSQL closes (stopped, restarted) is an outage at once; one the
                // probe abandons after a miss is not.
                connected.closeFuture.whenComplete { [self] _ in
                    guard !abandonment.isAbandoned else { return }
                    if markUnavailable() { logger.warning("the database closed the probe's connection: answering 503") }
                }
                while !Task.isCancelled {
                    try await withTimeLimit(limit, ProbeTimedOut(limit: limit)) {
                        try await connected.untilClosed {
                            _ = try await connected.query("SELECT 1", logger: logger).collect()
                        }
                    }
                    misses = 0
                    // The pause ends at once when PostgreSQL closes the connection.
                    let pause = policy.probeInterval
                    try await connected.untilClosed { try await Task.sleep(for: pause) }
                }
            } catch is ProbeTimedOut
                where !Task.isCancelled && published == .available && misses + 1 < policy.probeAttempts
            {
                // One slow answer is no outage: try again on a fresh connection.
                misses += 1
                abandonment.abandon()
                logger.notice(
                    "the database did not answer the probe within \(limit) (\(misses) of \(policy.probeAttempts)): probing again"
                )
            } catch let error as PSQLError where !Task.isCancelled && isTooManyConnections(error) {
                // PostgreSQL answered that it is full (every suite of a busy CI machine at once):
                // it is up, so no outage; the status stays and the probe connects again.
                logger.notice("the database refused the probe's connection: too many clients; probing again")
            } catch let error where !Task.isCancelled {
                misses = 0
                if markUnavailable() {
                    logger.warning(
                        "the database does not answer: answering 503",
                        metadata: ["error": "\(String(reflecting: error))"])
                }
                if published == .available {
                    published = .unavailable
                    await prepare(.unavailable)
                }
            } catch {}
            // Closing the probe's own connection at the end is no outage.
            if Task.isCancelled { state.withLock { $0.probing = false } }
            if let connection { try? await connection.close() }
            if Task.isCancelled { break }
            try? await Task.sleep(for: policy.reconnectInterval)
        }
    }
}

/// PostgreSQL's answer that it has no connection to spare (SQLSTATE 53300, `too_many_connections`):
/// it is up and answering.
private func isTooManyConnections(_ error: PSQLError) -> Bool {
    error.code == .server && error.serverInfo?[.sqlState] == "53300"
}

/// Whether the probe gave up a connection of its own accord (after a miss), so that its closing
/// is no outage.
private final class Abandonment: Sendable {
    private let abandoned = Mutex(false)

    var isAbandoned: Bool { abandoned.withLock { $0 } }

    func abandon() { abandoned.withLock { $0 = true } }
}

/// A probe that took longer than ``OutagePolicy/probeTimeout``.
struct ProbeTimedOut: Error, CustomStringConvertible {
    var limit: Duration
    var description: String { "no answer within \(limit)" }
}

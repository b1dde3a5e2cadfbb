import Foundation
import Rewind
import Synchronization

/// `RewindTestHelper crash <store> <round> <tasks> <sessions-per-task> <snapshot-interval> [<durability>]`
///
/// The child the crash tests SIGKILL. Opens an engine on `<store>` with `<durability>`
/// (`durable`, the default, `lastCommitMayRollBack` or `noSync`) and the built-in
/// projections inline, then `<tasks>` concurrent tasks (so group commit batches them) each send
/// `tick` (payload `{"round": <round>, "n": i}`) round-robin to its `<sessions-per-task>`
/// sessions `t<task>-s<index>` (started, or resumed when an earlier round made them) until it is
/// killed (or for at most a minute). After each acknowledged send it writes, in one `write(2)`:
///
///     ack <session> <version> <sequence> <round> <n>
///
/// and every 50 acknowledgements `stats <commits> <appends> <largest-batch>`. The sequence is
/// read back from the store after the acknowledgement (the record is committed by then).
enum CrashMode {
    static let name = "crash"

    static func run(arguments: [String]) async throws {
        guard arguments.count == 5 || arguments.count == 6, let round = Int(arguments[1]),
            let tasks = Int(arguments[2]), let perTask = Int(arguments[3]), let interval = UInt64(arguments[4]),
            let durability = durability(named: arguments.count == 6 ? arguments[5] : "durable")
        else {
            throw HelperFailure(
                message:
                    "usage: RewindTestHelper crash <store> <round> <tasks> <sessions-per-task> <snapshot-interval> [durable|lastCommitMayRollBack|noSync]"
            )
        }
        var configuration = EngineConfiguration(durability: durability, snapshotInterval: interval)
        configuration.projections = [ScreenFlowProjection(), NavigationProjection()]
        let engine = try Engine(directory: arguments[0], configuration: configuration)
        defer { engine.close() }
        try engine.register(try Machine(ticker))
        let output = LineWriter()
        let deadline = Date().addingTimeInterval(60)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var sessions: [Session] = []
                    for index in 0..<perTask {
                        sessions.append(try await startOrResume("t\(task)-s\(index)", in: engine))
                    }
                    var n = 0
                    while Date() < deadline {
                        let session = sessions[n % sessions.count]
                        try await session.send(
                            "tick", payload: ["round": .number(Double(round)), "n": .number(Double(n))])
                        let version = session.version
                        guard let record = try engine.store.records(of: session.id, versions: version...version).first
                        else {
                            throw HelperFailure(message: "acknowledged \(session.id)@\(version) is not in the store")
                        }
                        let count = output.write("ack \(session.id) \(version) \(record.sequence) \(round) \(n)\n")
                        if count % 50 == 0 {
                            let statistics = engine.commitStatistics
                            output.write(
                                "stats \(statistics.commits) \(statistics.appends) \(statistics.largestBatch)\n")
                        }
                        n += 1
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// The level named like its case.
    static func durability(named name: String) -> Durability? {
        switch name {
        case "durable": .durable
        case "lastCommitMayRollBack": .lastCommitMayRollBack
        case "noSync": .noSync
        default: nil
        }
    }

    static func startOrResume(_ id: String, in engine: Engine) async throws -> Session {
        do {
            return try await engine.startSession(id: id, machine: "ticker")
        } catch EngineError.sessionExists {
            return try engine.session(id)
        }
    }
}

/// Writes whole lines to stdout, each in one `write(2)` (so a SIGKILL never leaves half a line
/// that looks complete), from any task.
///
/// `@unchecked Sendable`: `lock` guards `lines` and serialises the writes. An `NSLock` (a pthread
/// mutex) rather than `Synchronization.Mutex`, so that the CI's ThreadSanitizer run, which runs
/// this helper, sees it (see scripts/tsan-suppressions.txt).
final class LineWriter: @unchecked Sendable {
    private let lock = NSLock()
    private var lines = 0

    /// Writes `line` (ending in a newline); returns how many lines were written so far.
    @discardableResult
    func write(_ line: String) -> Int {
        lock.withLock {
            let bytes = Array(line.utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Foundation.write(1, $0.baseAddress, $0.count) }
                if written <= 0 { break }
                offset += written
            }
            lines += 1
            return lines
        }
    }
}

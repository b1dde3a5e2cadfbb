// rewind-test-helper: a second process for the engine's multi-process tests.
//
// Modes for the reliability tests (see each mode's file): `crash` (sends at a durability level,
// acknowledged on stdout until SIGKILLed), `many` (several processes × many sessions, some shared), `readers`
// (reader slots held until killed, or all taken at once), `open` (opens a store with a given
// map size and closes it), `grow` (holds an environment open, then grows its map), `compact` (compacts a
// store, stopping at a step) and `hold` (keeps a store open until killed). Without a mode name:
//
//     RewindTestHelper <store> <writer> <shared-session> <own-session> <count> <start-at-ms>
//
// Opens an engine on <store> (durable), registers the ticker machine, starts or opens both
// sessions, waits until the wall clock reaches <start-at-ms> (milliseconds since 1970, so that
// several helpers send at the same time), then <count> times sends `tick` with the payload
// {"writer": <writer>, "n": i} to its own session and to the shared one, reloading and retrying
// the shared send after each version conflict. Prints one JSON object per line of what it saw:
// {"kind":"ack","session":…,"n":…,"version":…}, {"kind":"conflict","session":…,"n":…},
// {"kind":"exists","session":…} (another process started it first), {"kind":"error",…}.
import Foundation
import Rewind

/// One line of the helper's output.
struct Report: Encodable {
    var kind: String
    var session: String
    var n: Int?
    var version: UInt64?
    var detail: String?
}

func emit(_ report: Report) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    guard let line = try? encoder.encode(report) else { return }
    FileHandle.standardOutput.write(line + Data("\n".utf8))
}

/// The test support's `TickerMachine`, defined again here (the helper depends on `Rewind` only).
let ticker = MachineDefinition("ticker") {
    StateNode("idle") { On("tick", to: "idle") }
}

func open(_ id: String, in engine: Engine) async throws -> Session {
    do {
        return try await engine.startSession(id: id, machine: "ticker")
    } catch EngineError.sessionExists {
        emit(Report(kind: "exists", session: id))
        return try engine.session(id)
    }
}

func run(arguments: [String]) async throws {
    guard arguments.count == 7, let count = Int(arguments[5]), let startAt = Int64(arguments[6]) else {
        throw HelperFailure(message: "usage: RewindTestHelper <store> <writer> <shared> <own> <count> <start-at-ms>")
    }
    let writer = arguments[2]
    let engine = try Engine(directory: arguments[1])
    defer { engine.close() }
    try engine.register(try Machine(ticker))
    let shared = try await open(arguments[3], in: engine)
    let own = try await open(arguments[4], in: engine)
    let wait = startAt - Timestamp.now().microsecondsSince1970 / 1000
    if wait > 0 { try await Task.sleep(for: .milliseconds(wait)) }

    for n in 0..<count {
        let payload: JSONValue = ["writer": .string(writer), "n": .number(Double(n))]
        try await own.send("tick", payload: payload)
        emit(Report(kind: "ack", session: own.id.rawValue, n: n, version: own.version))
        while true {
            do {
                try await shared.send("tick", payload: payload)
                emit(Report(kind: "ack", session: shared.id.rawValue, n: n, version: shared.version))
                break
            } catch StoreError.versionConflict {
                emit(Report(kind: "conflict", session: shared.id.rawValue, n: n))
                try await shared.reload()
            }
        }
    }
}

/// A failure of the helper itself (bad arguments).
struct HelperFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

// The helper ends with the test process that started it. When that process crashes, a helper
// left waiting (for a go-file, or until it is killed) would keep the test run's output open and
// hang it. `prctl(PR_SET_PDEATHSIG)` is variadic in C, so Swift cannot call it: a thread watches
// for the helper's parent to change instead (an orphan is adopted by another process).
let parent = getppid()
Thread.detachNewThread {
    while getppid() == parent { Thread.sleep(forTimeInterval: 0.2) }
    exit(3)
}

do {
    let arguments = CommandLine.arguments
    switch arguments.count > 1 ? arguments[1] : "" {
    case CrashMode.name: try await CrashMode.run(arguments: Array(arguments.dropFirst(2)))
    case ManySessionsMode.name: try await ManySessionsMode.run(arguments: Array(arguments.dropFirst(2)))
    case ReaderMode.name: try ReaderMode.run(arguments: Array(arguments.dropFirst(2)))
    case OpenMode.name: try OpenMode.run(arguments: Array(arguments.dropFirst(2)))
    case GrowMode.name: try GrowMode.run(arguments: Array(arguments.dropFirst(2)))
    case CompactMode.name: try CompactMode.run(arguments: Array(arguments.dropFirst(2)))
    case HoldMode.name: try HoldMode.run(arguments: Array(arguments.dropFirst(2)))
    default: try await run(arguments: arguments)
    }
} catch {
    emit(Report(kind: "error", session: "", detail: String(describing: error)))
    exit(1)
}

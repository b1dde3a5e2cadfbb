import Foundation
import Rewind

/// `RewindTestHelper many <store> <writer> <own-sessions> <shared-sessions> <rounds> <start-at-ms>`
///
/// One of several processes appending to one store. Opens a durable engine, starts (or opens,
/// when another process started it first) its own sessions `own-<writer>-<i>` and the shared
/// sessions `shared-<j>`, waits until the wall clock reaches `<start-at-ms>`, then `<rounds>`
/// times sends `tick` (payload `{"writer": <writer>, "n": round}`) to each own session and to
/// each shared one, reloading and retrying a shared send after each version conflict. Prints
/// the same JSON lines as the default mode (`ack`, `conflict`, `exists`, `error`).
enum ManySessionsMode {
    static let name = "many"

    static func run(arguments: [String]) async throws {
        guard arguments.count == 6, let ownCount = Int(arguments[2]), let sharedCount = Int(arguments[3]),
            let rounds = Int(arguments[4]), let startAt = Int64(arguments[5])
        else {
            throw HelperFailure(
                message: "usage: RewindTestHelper many <store> <writer> <own> <shared> <rounds> <start-at-ms>")
        }
        let writer = arguments[1]
        let engine = try Engine(directory: arguments[0])
        defer { engine.close() }
        try engine.register(try Machine(ticker))
        var own: [Session] = []
        for index in 0..<ownCount { own.append(try await open("own-\(writer)-\(index)", in: engine)) }
        var shared: [Session] = []
        for index in 0..<sharedCount { shared.append(try await open("shared-\(index)", in: engine)) }
        let wait = startAt - Timestamp.now().microsecondsSince1970 / 1000
        if wait > 0 { try await Task.sleep(for: .milliseconds(wait)) }

        for n in 0..<rounds {
            let payload: JSONValue = ["writer": .string(writer), "n": .number(Double(n))]
            for session in own {
                try await session.send("tick", payload: payload)
                emit(Report(kind: "ack", session: session.id.rawValue, n: n, version: session.version))
            }
            for session in shared {
                while true {
                    do {
                        try await session.send("tick", payload: payload)
                        emit(Report(kind: "ack", session: session.id.rawValue, n: n, version: session.version))
                        break
                    } catch StoreError.versionConflict {
                        emit(Report(kind: "conflict", session: session.id.rawValue, n: n))
                        try await session.reload()
                    }
                }
            }
        }
    }
}

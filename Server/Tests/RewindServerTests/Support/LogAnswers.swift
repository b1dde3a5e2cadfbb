import Foundation
import Rewind

/// Everything an `AsyncTransitionLogReader` answers about a log, asked the same way of any reader: the
/// head, each session's info, each session's records from several versions with several limits,
/// the log's records from several sequences with several limits, and the definitions its records
/// name (and two it does not hold). Two readers of the same log must give equal answers.
struct LogAnswers: Equatable {
    var head: UInt64
    /// By session id; sessions the reader does not know are absent.
    var infos: [String: SessionInfo]
    /// By "session from version, limit".
    var sessionRecords: [String: [TransitionRecord]]
    /// By "from sequence, limit".
    var logRecords: [String: [TransitionRecord]]
    /// By "machine@version"; definitions the reader does not hold are absent.
    var definitions: [String: MachineDefinition]

    static let limits = [0, 1, 2, 3, 7, Int.max]

    /// Asks `reader` about `sessions` (ids that need not be in the log).
    static func of(_ reader: some AsyncTransitionLogReader, sessions: [SessionID]) async throws -> LogAnswers {
        let head = try await reader.headSequence()
        var answers = LogAnswers(head: head, infos: [:], sessionRecords: [:], logRecords: [:], definitions: [:])
        for session in sessions {
            let info = try await reader.sessionInfo(for: session)
            answers.infos[session.rawValue] = info
            let last = info?.headVersion ?? 3
            for version in Set([0, 1, 2, max(last, 1) - 1, last, last + 1, UInt64.max]) {
                for limit in limits {
                    answers.sessionRecords["\(session) \(version), \(limit)"] =
                        try await reader.records(of: session, fromVersion: version, limit: limit)
                }
            }
        }
        for sequence in Set([0, 1, 2, 3, head / 2, max(head, 1) - 1, head, head + 1, UInt64.max]) {
            for limit in limits {
                answers.logRecords["\(sequence), \(limit)"] = try await reader.records(
                    fromSequence: sequence, limit: limit)
            }
        }
        var names = Set(try await reader.records(fromSequence: 1, limit: .max).map { [$0.machine, $0.definition] })
        names.insert(["onboarding", "not-a-version"])
        names.insert(["no-such-machine", "x"])
        for name in names {
            answers.definitions["\(name[0])@\(name[1])"] = try await reader.storedDefinitionDocument(
                name: name[0], version: name[1]
            )
            .map { try MachineDefinition(jsonDocument: Data($0)) }
        }
        return answers
    }

    /// How many records the answers hold in all (for tests to check they are not trivially empty).
    var recordCount: Int { logRecords["1, \(Int.max)"]?.count ?? 0 }
}

import Foundation
import Rewind
import RewindWire

/// The JSON the commands print, decoded as the tests read it.
enum CommandOutputs {
    /// A row of `rewind sessions --json`.
    struct SessionRow: Decodable, Sendable {
        var session: String
        var machine: String
        var version: UInt64
        var states: [String]
        var updated: String
        var origin: String?
    }

    /// `rewind sessions --json`: the rows shown and how many sessions matched before `--limit`.
    struct SessionList: Decodable, Sendable {
        var sessions: [SessionRow]
        var total: Int
    }

    /// A row of `rewind history --json`.
    struct HistoryRow: Decodable, Sendable, Equatable {
        var version: UInt64
        var sequence: UInt64
        var time: String
        var event: String
        var source: [String]
        var target: [String]
        var navigation: [String]
        /// The stack after the version: entries with their data.
        var stack: [NavigationEntry]
    }

    /// `rewind state --json`, and each step of `rewind replay --json`.
    struct Point: Decodable, Sendable, Equatable {
        var session: String
        var version: UInt64
        var time: String?
        var event: String?
        var source: [String]
        var configuration: [String]
        var activeStates: [String]
        var navigation: [String]
        var navigationStack: [NavigationEntry]
    }

    /// A JSON change of `diff --json`: `before` or `after` absent is `nil`, JSON `null` is
    /// `.null` (``JSONValue``'s rule for `JSONValue?`).
    struct Change: Decodable, Sendable, Equatable {
        var change: String
        var path: String
        var before: JSONValue?
        var after: JSONValue?

        enum CodingKeys: String, CodingKey { case change, path, before, after }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            change = try container.decode(String.self, forKey: .change)
            path = try container.decode(String.self, forKey: .path)
            before = try container.decodeJSONValueIfPresent(forKey: .before)
            after = try container.decodeJSONValueIfPresent(forKey: .after)
        }
    }

    struct Diff: Decodable, Sendable {
        var from: UInt64
        var to: UInt64
        var exited: [String]
        var entered: [String]
        var stateData: [Change]
        var context: [Change]
        var payload: [Change]
        var popped: [NavigationEntry]
        var pushed: [NavigationEntry]
        var navigationBefore: [NavigationEntry]
        var navigationAfter: [NavigationEntry]
    }

    /// How the text outputs show a stack: `all › detail {"character":"日"}` (an entry's data as
    /// compact JSON with sorted keys, after its screen, when it has some).
    static func stackText(_ entries: [NavigationEntry]) throws -> String {
        try entries.map { entry in
            entry.data.isNull
                ? entry.screen : "\(entry.screen) \(String(decoding: try entry.data.encoded(), as: UTF8.self))"
        }.joined(separator: " › ")
    }

    /// A row of `rewind verify --json`.
    struct VerifyRow: Decodable, Sendable {
        var session: String
        var machine: String
        var verifiedRecords: UInt64
        var divergence: String?
    }

    /// `rewind verify --json`: the rows and the totals.
    struct Verify: Decodable, Sendable {
        var sessions: [VerifyRow]
        var verifiedSessions: Int
        var verifiedRecords: UInt64
        var diverged: Int
    }

    /// `rewind export --json` and `rewind import --json`.
    struct Archive: Decodable, Sendable {
        var session: String
        var machine: String
        var records: UInt64
        var file: String?
    }

    /// `rewind fork --json`.
    struct Fork: Decodable, Sendable {
        var session: String
        var origin: String
        var version: UInt64
    }

    /// A row of `rewind projections --json`.
    struct ProjectionRow: Decodable, Sendable {
        var name: String
        var version: UInt32
        var checkpoint: UInt64
        var head: UInt64
        /// What the text's STATUS column says.
        var status: String
        var failure: String?
        /// `rebuild` only: how long it took.
        var seconds: Double?
    }

    /// `rewind stats --json`.
    struct Stats: Decodable, Sendable {
        var store: String
        var records: UInt64
        var sessions: Int
        var machines: [String: Int]
        var fileBytes: UInt64
        var mapBytes: Int
        var usedBytes: Int
        var oldest: String?
        var newest: String?
    }

    /// A run of `rewind bench --json`.
    struct BenchRun: Decodable, Sendable {
        var run: String
        var sessions: Int
        var transitions: Int
        var seconds: Double
        var transitionsPerSecond: Double
        var p50Microseconds: Double
        var p99Microseconds: Double
        var averageBatch: Double
    }
}

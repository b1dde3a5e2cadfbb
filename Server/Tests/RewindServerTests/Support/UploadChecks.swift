import Foundation
import PostgresNIO
import Rewind
@_spi(Internals) import RewindStore
import RewindSync
import Testing

@testable import RewindServer

/// Checks of a server's copy of a device store, and waits on an uploader's progress.
extension TestDatabase {
    /// The sessions table's rows of `storeID`: session id → (head version, record count).
    func sessionHeads(store storeID: UUID) async throws -> [String: (headVersion: Int64, recordCount: Int64)] {
        try await withClient { client in
            var heads: [String: (headVersion: Int64, recordCount: Int64)] = [:]
            for try await (session, head, count) in try await client.query(
                """
                SELECT session_id, head_version, record_count FROM sessions WHERE store_id = \(storeID)
                """
            ).decode((String, Int64, Int64).self) {
                heads[session] = (head, count)
            }
            return heads
        }
    }

    /// The store's records in sequence order, each with its session's stored head version and
    /// record count, read by one statement (one snapshot of the database).
    func recordsAndHeads(store storeID: UUID) async throws -> (
        rows: [(sequence: Int64, session: String, bytes: [UInt8])],
        heads: [String: (headVersion: Int64, recordCount: Int64)]
    ) {
        try await withClient { client in
            var rows: [(sequence: Int64, session: String, bytes: [UInt8])] = []
            var heads: [String: (headVersion: Int64, recordCount: Int64)] = [:]
            for try await (sequence, session, bytes, head, count) in try await client.query(
                """
                SELECT r.sequence, r.session_id, r.record, s.head_version, s.record_count
                FROM records r
                JOIN sessions s ON s.app_id = r.app_id AND s.store_id = r.store_id AND s.session_id = r.session_id
                WHERE r.store_id = \(storeID) ORDER BY r.app_id, r.sequence
                """
            ).decode((Int64, String, ByteBuffer, Int64, Int64).self) {
                rows.append((sequence, session, Array(buffer: bytes)))
                heads[session] = (head, count)
            }
            return (rows, heads)
        }
    }

    /// Asserts that the server holds a prefix of `device`'s log and nothing else for its store:
    /// sequences 1…n without gap or duplicate, each record byte for byte the device's, and every
    /// session's head and record count those of these records (nothing half-stored). With
    /// `expected`, n must be it. Returns n.
    @discardableResult
    func expectHoldsPrefix(
        of device: Device, count expected: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Int {
        // The records and their sessions' rows in ONE statement (one snapshot): an uploader still
        // running commits batches between two queries.
        let storeID = device.storeID
        let (rows, stored) = try await withDeadline(.seconds(120), { "read of the server's copy at \(sourceLocation)" })
        {
            try await self.recordsAndHeads(store: storeID)
        }
        let deviceRecords = try device.records()
        #expect(
            rows.map(\.sequence) == Array(0..<Int64(rows.count)).map { $0 + 1 }, "gap-free, no duplicate",
            sourceLocation: sourceLocation)
        #expect(rows.count <= deviceRecords.count, "no more than the device has", sourceLocation: sourceLocation)
        if let expected { #expect(rows.count == expected, sourceLocation: sourceLocation) }
        var heads: [String: (headVersion: Int64, recordCount: Int64)] = [:]
        for (row, record) in zip(rows, deviceRecords) {
            #expect(
                row.bytes == RecordCodec.encode(record), "record \(record.sequence) byte for byte",
                sourceLocation: sourceLocation)
            let head = heads[row.session]
            heads[row.session] = (Int64(record.version), (head?.recordCount ?? 0) + 1)
        }
        #expect(
            Set(stored.keys) == Set(heads.keys), "the sessions of the stored records", sourceLocation: sourceLocation)
        for (session, head) in heads {
            #expect(
                stored[session]?.headVersion == head.headVersion, "\(session)'s head", sourceLocation: sourceLocation)
            #expect(
                stored[session]?.recordCount == head.recordCount, "\(session)'s record count",
                sourceLocation: sourceLocation)
        }
        return rows.count
    }
}

extension Uploader {
    /// An uploader of `device` to `port` on 127.0.0.1 with `key`, retrying quickly (tests wait on
    /// its progress, with no fixed sleep). A request that gets no answer fails after
    /// `requestTimeout`.
    static func forTest(
        _ device: Device, port: Int, key: String, batchRecords: Int = 500, batchBytes: Int = 1 << 20,
        requestTimeout: Duration = .seconds(30), destination: String? = nil
    ) -> Uploader {
        Uploader(
            engine: device.engine, server: URL(string: "http://127.0.0.1:\(port)")!, key: key,
            configuration: UploaderConfiguration(
                maximumBatchRecords: batchRecords, maximumBatchBytes: batchBytes, coalescingDelay: .milliseconds(5),
                backoff: Backoff(initial: .milliseconds(20), multiplier: 2, maximum: .milliseconds(400), jitter: 0.5),
                requestTimeout: requestTimeout, destination: destination))
    }

    /// Waits until the progress satisfies `condition` and returns it; throws
    /// ``DeadlineExceeded`` (with the progress then) when that takes longer than `deadline`,
    /// so a wait for something that never happens fails instead of hanging.
    @discardableResult
    nonisolated func wait(
        deadline: Duration = .seconds(180), sourceLocation: SourceLocation = #_sourceLocation,
        until condition: @escaping @Sendable (UploadProgress) -> Bool
    ) async throws -> UploadProgress {
        try await withDeadline(
            deadline, { "progress meeting the condition at \(sourceLocation); last: \(self.progress)" }
        ) {
            for await progress in self.progressUpdates where condition(progress) { return progress }
            throw CancellationError()
        }
    }

    /// ``waitUntilUploaded(through:)``, throwing ``DeadlineExceeded`` (with the progress then)
    /// when it takes longer than `deadline`.
    nonisolated func waitUntilUploaded(through sequence: UInt64, deadline: Duration) async throws {
        try await withDeadline(deadline, { "acknowledgement through \(sequence); last: \(self.progress)" }) {
            try await self.waitUntilUploaded(through: sequence)
        }
    }
}

/// A wait that did not end within its deadline.
struct DeadlineExceeded: Error, CustomStringConvertible {
    var description: String
}

/// `body`'s result, or ``DeadlineExceeded`` naming `what` was awaited once `deadline` has passed:
/// a test's wait for an event that never comes fails with a message.
///
/// At the deadline nothing waits for `body` any more (RewindServer's `withTimeLimit`): the failure
/// is thrown at once, also when `body` is stuck somewhere cancellation does not reach (a task group
/// would wait for it, and a hang would last until the suite's time limit, naming no step).
func withDeadline<R: Sendable>(
    _ deadline: Duration, _ what: @escaping @Sendable () -> String, _ body: @escaping @Sendable () async throws -> R
) async throws -> R {
    try await withTimeLimit(deadline, DeadlineExceeded(description: "no \(what()) within \(deadline)"), body)
}

extension Device {
    /// `count` onboarding sessions named `prefix-i` (4 records each), written while other tasks run.
    func writeSessions(_ count: Int, prefix: String) async throws {
        try await runOnboarding((0..<count).map { "\(prefix)-\($0)" })
    }

    /// The log's head.
    var head: UInt64 { get throws { try engine.store.headSequence() } }
}

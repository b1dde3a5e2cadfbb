import Foundation
import Logging
import PostgresNIO
import Rewind
@_spi(Internals) import RewindStore

extension PostgresTransitionLog {
    /// A consistent read of the log: every answer is bounded by the head sequence read when it
    /// was made (see ``PostgresTransitionLog``'s design).
    public struct Reader: AsyncTransitionLogReader, Sendable {
        /// The log read.
        public let log: PostgresTransitionLog
        /// The last sequence this reader sees.
        public let head: UInt64

        /// The last global sequence this reader sees (0 when the server holds none).
        public func headSequence() async throws -> UInt64 { head }

        /// The session's head from the `sessions` table (with the origin of its first record),
        /// recomputed from the records under the bound when the row is newer than it; `nil` when
        /// the log holds no record of it up to the bound, and for a session whose history begins
        /// after version 1 without a base to replay it from (it arrived trimmed from a device that
        /// sent none: replay answers 410 for it). A session with a base has it as its
        /// ``SessionInfo/baseVersion``.
        ///
        /// - Throws: ``PostgresLogError/damagedRecord(storeID:sequence:reason:)``, PostgreSQL's errors.
        public func sessionInfo(for session: SessionID) async throws -> SessionInfo? {
            let (client, appID, storeID, logger, bound) = (log.client, log.appID, log.storeID, log.logger, Int64(head))
            var found: SessionRow?
            for (
                machine, headVersion, headSequence, count, first, last, hasBase, firstSequence, firstVersion, firstBytes
            )
                in try await client.rows(
                    """
                    SELECT s.machine, s.head_version, s.head_sequence, s.record_count, s.first_recorded_at_us,
                        s.last_recorded_at_us, s.base_snapshot IS NOT NULL, r.sequence, r.version, r.record
                    FROM sessions s JOIN records r ON r.app_id = s.app_id AND r.store_id = s.store_id
                        AND r.session_id = s.session_id AND r.version = s.first_version
                    WHERE s.app_id = \(appID) AND s.store_id = \(storeID) AND s.session_id = \(session.rawValue)
                        AND r.sequence <= \(bound)
                    """, logger: logger
                ).decode((String, Int64, Int64, Int64, Int64, Int64, Bool, Int64, Int64, ByteBuffer).self)
            {
                found = SessionRow(
                    machine: machine, headVersion: headVersion, headSequence: headSequence, recordCount: count,
                    firstMicroseconds: first, lastMicroseconds: last, hasBase: hasBase,
                    first: StoredRecord(
                        sequence: firstSequence, session: session.rawValue, version: firstVersion, bytes: firstBytes))
            }
            guard var row = found, row.first.version == 1 || row.hasBase else { return nil }
            let first = try decode(row.first)
            if row.headSequence > bound {
                // Records of this session came in after the reader began: its head under the bound.
                guard let last = try await records(of: session, descendingFrom: bound).first else { return nil }
                row.machine = last.machine
                row.headVersion = Int64(last.version)
                row.headSequence = Int64(last.sequence)
                row.recordCount = Int64(last.version) - row.first.version + 1
                row.lastMicroseconds = last.timestamp.microsecondsSince1970
            }
            return SessionInfo(
                session: session, headVersion: UInt64(row.headVersion), headSequence: UInt64(row.headSequence),
                machine: row.machine, recordCount: UInt64(row.recordCount),
                created: Timestamp(microsecondsSince1970: row.firstMicroseconds),
                updated: Timestamp(microsecondsSince1970: row.lastMicroseconds), origin: first.origin,
                baseVersion: row.first.version > 1 ? UInt64(row.first.version) : nil)
        }

        /// The snapshot stored as the base of a trimmed session (at its first version), or `nil`.
        ///
        /// - Throws: ``PostgresLogError/damagedBase(storeID:session:reason:)`` for a stored base
        ///   that does not decode, PostgreSQL's errors.
        public func baseSnapshot(of session: SessionID) async throws -> SessionSnapshot? {
            let (client, appID, storeID, logger) = (log.client, log.appID, log.storeID, log.logger)
            for bytes in try await client.rows(
                """
                SELECT base_snapshot FROM sessions
                WHERE app_id = \(appID) AND store_id = \(storeID) AND session_id = \(session.rawValue)
                    AND base_snapshot IS NOT NULL
                """, logger: logger
            ).decode(ByteBuffer.self) {
                do {
                    return try JSONDecoder().decode(SessionSnapshot.self, from: Data(buffer: bytes))
                } catch {
                    throw PostgresLogError.damagedBase(storeID: storeID, session: session.rawValue, reason: "\(error)")
                }
            }
            return nil
        }

        /// Up to `limit` records of `session` in version order from version `version` on.
        ///
        /// - Throws: ``PostgresLogError/damagedRecord(storeID:sequence:reason:)``, PostgreSQL's errors.
        public func records(of session: SessionID, fromVersion version: UInt64, limit: Int) async throws
            -> [TransitionRecord]
        {
            guard limit > 0, let from = Int64(exactly: max(version, 1)) else { return [] }
            let (client, appID, storeID, logger, bound) = (log.client, log.appID, log.storeID, log.logger, Int64(head))
            let rows = try Self.collect(
                try await client.rows(
                    """
                    SELECT sequence, session_id, version, record FROM records
                    WHERE app_id = \(appID) AND store_id = \(storeID) AND session_id = \(session.rawValue)
                        AND version >= \(from) AND sequence <= \(bound)
                    ORDER BY version LIMIT \(Int64(limit))
                    """, logger: logger))
            return try rows.map(decode)
        }

        /// The definitions `session`'s records from version `version` on name, in the order they
        /// first appear: one query over the `definition` column (`records_by_session`), no record
        /// decoded.
        ///
        /// - Throws: PostgreSQL's errors.
        public func definitionVersions(of session: SessionID, fromVersion version: UInt64) async throws -> [String] {
            guard let from = Int64(exactly: max(version, 1)) else { return [] }
            let (client, appID, storeID, logger, bound) = (log.client, log.appID, log.storeID, log.logger, Int64(head))
            var versions: [String] = []
            for definition in try await client.rows(
                """
                SELECT definition FROM records
                WHERE app_id = \(appID) AND store_id = \(storeID) AND session_id = \(session.rawValue)
                    AND version >= \(from) AND sequence <= \(bound)
                GROUP BY definition ORDER BY min(version)
                """, logger: logger
            ).decode(String.self) {
                versions.append(definition)
            }
            return versions
        }

        /// Up to `limit` records of the log in sequence order from sequence `sequence` on.
        ///
        /// - Throws: ``PostgresLogError/damagedRecord(storeID:sequence:reason:)``, PostgreSQL's errors.
        public func records(fromSequence sequence: UInt64, limit: Int) async throws -> [TransitionRecord] {
            guard limit > 0, let from = Int64(exactly: max(sequence, 1)) else { return [] }
            let (client, appID, storeID, logger, bound) = (log.client, log.appID, log.storeID, log.logger, Int64(head))
            let rows = try Self.collect(
                try await client.rows(
                    """
                    SELECT sequence, session_id, version, record FROM records
                    WHERE app_id = \(appID) AND store_id = \(storeID) AND sequence >= \(from) AND sequence <= \(bound)
                    ORDER BY sequence LIMIT \(Int64(limit))
                    """, logger: logger))
            return try rows.map(decode)
        }

        /// The JSON interchange document stored for the store's app under `name` and `version`,
        /// byte for byte as the device uploaded it (its SHA-256 is `version`), or `nil`.
        ///
        /// - Throws: PostgreSQL's errors.
        public func storedDefinitionDocument(name: String, version: String) async throws -> [UInt8]? {
            let (client, appID, logger) = (log.client, log.appID, log.logger)
            for document in try await client.rows(
                """
                SELECT document FROM definitions WHERE app_id = \(appID) AND machine = \(name) AND content_version = \(version)
                """, logger: logger
            ).decode(ByteBuffer.self) {
                return Array(buffer: document)
            }
            return nil
        }

        // MARK: Rows

        /// A row of `records`, not decoded yet.
        struct StoredRecord: Sendable {
            var sequence: Int64
            var session: String
            var version: Int64
            var bytes: ByteBuffer
        }

        /// A row of `sessions` with the first record of its session.
        struct SessionRow: Sendable {
            var machine: String
            var headVersion: Int64
            var headSequence: Int64
            var recordCount: Int64
            var firstMicroseconds: Int64
            var lastMicroseconds: Int64
            /// Whether the row holds the base its history begins at.
            var hasBase: Bool
            var first: StoredRecord
        }

        private static func collect(_ rows: [PostgresRow]) throws -> [StoredRecord] {
            try rows.decode((Int64, String, Int64, ByteBuffer).self).map { sequence, session, version, bytes in
                StoredRecord(sequence: sequence, session: session, version: version, bytes: bytes)
            }
        }

        /// The records of `session` at or below sequence `bound`, latest version first (at most one).
        private func records(of session: SessionID, descendingFrom bound: Int64) async throws -> [TransitionRecord] {
            let (client, appID, storeID, logger) = (log.client, log.appID, log.storeID, log.logger)
            let rows = try Self.collect(
                try await client.rows(
                    """
                    SELECT sequence, session_id, version, record FROM records
                    WHERE app_id = \(appID) AND store_id = \(storeID) AND session_id = \(session.rawValue)
                        AND sequence <= \(bound)
                    ORDER BY version DESC LIMIT 1
                    """, logger: logger))
            return try rows.map(decode)
        }

        /// Decodes a row's record bytes under its sequence, checking that it is the session and
        /// version the row says.
        private func decode(_ row: StoredRecord) throws -> TransitionRecord {
            try Self.decode(row, storeID: log.storeID)
        }

        /// Decodes a row of store `storeID`'s records (see ``decode(_:)``).
        static func decode(_ row: StoredRecord, storeID: UUID) throws -> TransitionRecord {
            let record = try decode(row.bytes, sequence: row.sequence, storeID: storeID)
            guard record.session.rawValue == row.session, Int64(exactly: record.version) == row.version else {
                throw PostgresLogError.damagedRecord(
                    storeID: storeID, sequence: record.sequence,
                    reason:
                        "it holds '\(record.session)' version \(record.version), but its row says '\(row.session)' version \(row.version)"
                )
            }
            return record
        }

        /// Decodes the record bytes stored under `sequence` of store `storeID`: the one way the
        /// server reads a stored record (replay, listings, erasure and the projections' catch-up).
        ///
        /// - Throws: ``PostgresLogError/damagedRecord(storeID:sequence:reason:)`` when they do not
        ///   decode (a checksum, the format, a field).
        static func decode(_ bytes: ByteBuffer, sequence: Int64, storeID: UUID) throws -> TransitionRecord {
            let sequence = UInt64(max(sequence, 0))
            do {
                return try bytes.withUnsafeReadableBytes { try RecordCodec.decode($0, sequence: sequence) }
            } catch {
                throw PostgresLogError.damagedRecord(
                    storeID: storeID, sequence: sequence, reason: String(describing: error))
            }
        }
    }
}

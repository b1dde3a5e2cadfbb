import Crypto
import Foundation
import Logging
import PostgresNIO
@_spi(Internals) import RewindStore
import RewindWire

/// Checks batches and stores them in PostgreSQL: each batch all or nothing, in one transaction,
/// under a row lock on its store (so uploads of one store take turns).
public struct Ingestion: Sendable {
    let database: DatabasePool
    let logger: Logger
    var client: PostgresClient { database.client }

    /// Ingestion into `client`'s database.
    public init(client: PostgresClient, logger: Logger) {
        self.init(database: DatabasePool(fixed: client), logger: logger)
    }

    /// Ingestion through the server's pool (its current client at each use).
    init(database: DatabasePool, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// A record of a batch, checked and decoded.
    struct CheckedRecord {
        /// Its place in the batch.
        var index: Int
        var bytes: [UInt8]
        var record: TransitionRecord
        var sequence: Int64
        var version: Int64
    }

    /// Checks a batch without the database: framing, every record's checksum and fields (decoded
    /// with the sequence its place gives it), every definition's content version, every base
    /// (a snapshot of a version of a session the batch holds a record of).
    ///
    /// - Throws: ``APIError`` 400 naming the byte offset, the record index and sequence, or the
    ///   definition at fault.
    static func check(_ body: some Collection<UInt8>) throws(APIError) -> (
        IngestionBatch, [CheckedRecord], [SessionBases.Base]
    ) {
        let batch: IngestionBatch
        do {
            batch = try IngestionBatch(decoding: body)
        } catch {
            throw APIError(.badRequest, error.description, details: ["offset": .integer(Int64(error.offset))])
        }
        let (last, overflow) = batch.firstSequence.addingReportingOverflow(UInt64(batch.records.count))
        guard !overflow, last <= UInt64(Int64.max) else {
            throw APIError(.badRequest, "the batch's sequences pass \(Int64.max)")
        }
        for (index, definition) in batch.definitions.enumerated() {
            let digest = APIKey.hex(Array(SHA256.hash(data: definition.document)))
            guard digest == definition.contentVersion else {
                throw APIError(
                    .badRequest,
                    "definition \(index) (\(definition.machine)) claims content version \(definition.contentVersion) but its document's SHA-256 is \(digest)",
                    details: ["definitionIndex": .integer(Int64(index))])
            }
            guard !definition.machine.isEmpty, !definition.machine.utf8.contains(0) else {
                throw APIError(
                    .badRequest, "definition \(index) has an empty machine name or one with a NUL character",
                    details: ["definitionIndex": .integer(Int64(index))])
            }
        }
        var checked: [CheckedRecord] = []
        checked.reserveCapacity(batch.records.count)
        for (index, bytes) in batch.records.enumerated() {
            let sequence = batch.firstSequence + UInt64(index)
            let details: [String: APIError.Detail] = [
                "recordIndex": .integer(Int64(index)), "sequence": .integer(Int64(sequence)),
            ]
            let record: TransitionRecord
            do {
                record = try RecordCodec.decode(bytes, sequence: sequence)
            } catch {
                throw APIError(
                    .badRequest, "record \(index) (sequence \(sequence)) is invalid: \(error)", details: details)
            }
            // PostgreSQL's text cannot hold NUL; the record's bytes could, but its columns cannot.
            for (field, text) in [
                ("machine", record.machine), ("definition", record.definition), ("event", record.event),
            ]
            where text.utf8.contains(0) {
                throw APIError(
                    .badRequest, "record \(index) (sequence \(sequence)) has a NUL character in its \(field)",
                    details: details)
            }
            guard let version = Int64(exactly: record.version) else {
                throw APIError(
                    .badRequest,
                    "record \(index) (sequence \(sequence)) has version \(record.version), past \(Int64.max)",
                    details: details)
            }
            checked.append(
                CheckedRecord(index: index, bytes: bytes, record: record, sequence: Int64(sequence), version: version))
        }
        let bases = try SessionBases.checked(batch.bases)
        for (index, base) in bases.enumerated()
        where !checked.contains(where: { $0.version == base.version && $0.record.session.rawValue == base.session }) {
            throw APIError(
                .badRequest,
                "base \(index) (session '\(base.session)', version \(base.version)) names no record of the batch",
                details: ["baseIndex": .integer(Int64(index)), "session": .text(base.session)])
        }
        return (batch, checked, bases)
    }

    /// Checks `body` and stores its records and definitions for `storeID` of app `appID`.
    ///
    /// A batch that starts past the server's next sequence is a 409 carrying `nextSequence`; records
    /// the server holds already must be byte-identical (else 409) and are acknowledged, not stored
    /// again; records at an erased sequence of the store, or of a session the app erased (a
    /// tombstone), are acknowledged and dropped (their sequences become erased ranges); the rest
    /// are stored with their definitions and the sessions' heads in one transaction, with the
    /// bases of trimmed sessions that begin in the batch (``SessionBases``). The store's next
    /// sequence skips an erased range it reaches. Any error stores nothing.
    public func ingest(body: some Collection<UInt8>, storeID: UUID, appID: Int64) async throws -> IngestionResult {
        let (batch, records, bases) = try Self.check(body)
        let logger = self.logger
        return try await client.transaction(logger: logger) { connection -> IngestionResult in
            // Before the store's row: an erasure of the app waits for this batch, or this batch
            // for it, so its tombstone check below sees every erasure committed before it.
            try await Erasure.lockApp(appID, exclusive: false, connection: connection, logger: logger)
            try await connection.query(
                """
                INSERT INTO stores (app_id, store_id) VALUES (\(appID), \(storeID)) ON CONFLICT DO NOTHING
                """, logger: logger)
            var next: Int64 = 1
            for try await value in try await connection.query(
                """
                SELECT next_sequence FROM stores WHERE app_id = \(appID) AND store_id = \(storeID) FOR UPDATE
                """, logger: logger
            ).decode(Int64.self) {
                next = value
            }
            let first = Int64(batch.firstSequence)
            guard first <= next else {
                throw APIError(
                    .conflict,
                    "the batch starts at sequence \(first) but the server holds this store's records up to \(next - 1)",
                    details: ["nextSequence": .integer(next)])
            }
            guard let last = records.last?.sequence else {
                return IngestionResult(storeID: storeID, nextSequence: UInt64(next), stored: 0, alreadyHeld: 0)
            }
            let erasedRanges = try await Erasure.erasedRanges(
                of: storeID, appID: appID, meeting: first...last, connection: connection, logger: logger)
            let isErased = { (sequence: Int64) in erasedRanges.contains { $0.contains(sequence) } }
            let held = records.filter { $0.sequence < next && !isErased($0.sequence) }
            let candidates = records.filter { $0.sequence >= next && !isErased($0.sequence) }
            let tombstoned = try await Erasure.tombstoned(
                Array(Set(candidates.map(\.record.session.rawValue))), appID: appID, connection: connection,
                logger: logger)
            let fresh = candidates.filter { !tombstoned.contains($0.record.session.rawValue) }
            let dropped = candidates.filter { tombstoned.contains($0.record.session.rawValue) }
            if !held.isEmpty {
                try await Self.checkHeld(
                    held, appID: appID, storeID: storeID, next: next, connection: connection, logger: logger)
            }
            guard last >= next else {
                return IngestionResult(
                    storeID: storeID, nextSequence: UInt64(next), stored: 0, alreadyHeld: held.count,
                    erased: records.count - held.count)
            }
            try await Erasure.addErasedRanges(
                dropped.map { $0.sequence...$0.sequence }, appID: appID, storeID: storeID, connection: connection,
                logger: logger)
            if !fresh.isEmpty {
                try await Self.storeDefinitions(
                    batch.definitions, for: fresh, appID: appID, connection: connection, logger: logger)
                try await Self.insertRecords(
                    fresh, appID: appID, storeID: storeID, connection: connection, logger: logger)
                try await Self.updateSessions(
                    fresh, appID: appID, storeID: storeID, connection: connection, logger: logger)
                try await SessionBases.store(
                    bases, appID: appID, storeID: storeID, connection: connection, logger: logger)
            }
            let newNext = try await Erasure.setNextSequence(
                last + 1, appID: appID, storeID: storeID, connection: connection, logger: logger)
            let erased = records.count - held.count - fresh.count
            logger.info(
                "stored batch",
                metadata: [
                    "app": "\(appID)", "store": "\(storeID)", "first": "\(max(first, next))",
                    "count": "\(fresh.count)", "erased": "\(erased)", "next": "\(newNext)",
                ])
            return IngestionResult(
                storeID: storeID, nextSequence: UInt64(newNext), stored: fresh.count,
                alreadyHeld: held.count, erased: erased)
        }
    }

    /// Checks that records the server holds already are the ones sent again, byte for byte.
    private static func checkHeld(
        _ records: [CheckedRecord], appID: Int64, storeID: UUID, next: Int64,
        connection: PostgresConnection, logger: Logger
    ) async throws {
        guard let first = records.first?.sequence, let last = records.last?.sequence else { return }
        var stored: [Int64: ByteBuffer] = [:]
        for try await (sequence, bytes) in try await connection.query(
            """
            SELECT sequence, record FROM records
            WHERE app_id = \(appID) AND store_id = \(storeID) AND sequence BETWEEN \(first) AND \(last)
            """, logger: logger
        ).decode((Int64, ByteBuffer).self) {
            stored[sequence] = bytes
        }
        for record in records {
            guard let held = stored[record.sequence], Array(buffer: held) == record.bytes else {
                throw APIError(
                    .conflict,
                    "record \(record.index) (sequence \(record.sequence)) differs from the record the server holds at that sequence",
                    details: [
                        "nextSequence": .integer(next), "recordIndex": .integer(Int64(record.index)),
                        "sequence": .integer(record.sequence),
                    ])
            }
        }
    }

    /// Stores the batch's definitions and checks that every definition the new records name is in
    /// the batch or held already.
    private static func storeDefinitions(
        _ definitions: [IngestionBatch.Definition], for records: [CheckedRecord], appID: Int64,
        connection: PostgresConnection, logger: Logger
    ) async throws {
        struct Name: Hashable {
            var machine: String
            var version: String
        }
        let sent = Set(definitions.map { Name(machine: $0.machine, version: $0.contentVersion) })
        var needed: [Name: (index: Int, sequence: Int64)] = [:]
        for record in records {
            let name = Name(machine: record.record.machine, version: record.record.definition)
            if !sent.contains(name), needed[name] == nil { needed[name] = (record.index, record.sequence) }
        }
        for (name, place) in needed.sorted(by: { $0.value.index < $1.value.index }) {
            let rows = try await connection.query(
                """
                SELECT 1 FROM definitions WHERE app_id = \(appID) AND machine = \(name.machine) AND content_version = \(name.version)
                """, logger: logger)
            var found = false
            for try await _ in rows { found = true }
            guard found else {
                throw APIError(
                    .badRequest,
                    "record \(place.index) (sequence \(place.sequence)) names definition \(name.machine)@\(name.version), which neither the batch nor the server holds",
                    details: ["recordIndex": .integer(Int64(place.index)), "sequence": .integer(place.sequence)])
            }
        }
        // In one order whatever order the batch lists them in: concurrent batches of an app's
        // devices insert the same definitions, and each takes their index entries' locks in this
        // order, so two batches never wait for each other in a cycle (a deadlock, a 500).
        let ordered = definitions.sorted { ($0.machine, $0.contentVersion) < ($1.machine, $1.contentVersion) }
        try await definitionsInsert.run(ordered, on: connection, logger: logger) { definition, row in
            try row.append(appID)
            try row.append(definition.machine)
            try row.append(definition.contentVersion)
            try row.append(bytes: definition.document)
        }
    }

    private static let definitionsInsert = MultiRowInsert(
        table: "definitions",
        columns: [.int8("app_id"), .text("machine"), .text("content_version"), .bytea("document")],
        suffix: "ON CONFLICT DO NOTHING")

    /// Inserts the records, in one statement.
    private static func insertRecords(
        _ records: [CheckedRecord], appID: Int64, storeID: UUID,
        connection: PostgresConnection, logger: Logger
    ) async throws {
        try await recordsInsert.run(records, on: connection, logger: logger) { record, row in
            try row.append(appID)
            try row.append(storeID)
            try row.append(record.sequence)
            try row.append(record.record.session.rawValue)
            try row.append(record.version)
            try row.append(record.record.machine)
            try row.append(record.record.definition)
            try row.append(record.record.event)
            try row.append(record.record.timestamp.microsecondsSince1970)
            try row.append(bytes: record.bytes)
        }
    }

    private static let recordsInsert = MultiRowInsert(
        table: "records",
        columns: [
            .int8("app_id"), .uuid("store_id"), .int8("sequence"), .text("session_id"), .int8("version"),
            .text("machine"), .text("definition"), .text("event"), .int8("recorded_at_us"), .bytea("record"),
            .sql("received_at", "now()"),
        ])

    /// Moves each session's head to its last record of the batch.
    private static func updateSessions(
        _ records: [CheckedRecord], appID: Int64, storeID: UUID,
        connection: PostgresConnection, logger: Logger
    ) async throws {
        struct Head {
            var last: CheckedRecord
            var count: Int64
            var firstRecordedAt: Int64
            /// The session's first version in the batch: its first version when it is new here
            /// (later than 1 when the device erased its beginning before uploading it).
            var firstVersion: Int64
        }
        var heads: [SessionID: Head] = [:]
        var order: [SessionID] = []
        for record in records {
            if var head = heads[record.record.session] {
                head.last = record
                head.count += 1
                heads[record.record.session] = head
            } else {
                heads[record.record.session] = Head(
                    last: record, count: 1, firstRecordedAt: record.record.timestamp.microsecondsSince1970,
                    firstVersion: record.version)
                order.append(record.record.session)
            }
        }
        let rows = order.compactMap { session in heads[session].map { (session, $0) } }
        try await sessionsUpsert.run(rows, on: connection, logger: logger) { entry, row in
            let (session, head) = entry
            let last = head.last.record
            try row.append(appID)
            try row.append(storeID)
            try row.append(session.rawValue)
            try row.append(last.machine)
            try row.append(last.definition)
            try row.append(head.last.version)
            try row.append(head.last.sequence)
            try row.append(head.count)
            try row.append(head.firstRecordedAt)
            try row.append(last.timestamp.microsecondsSince1970)
            try row.append(last.event)
            try row.append(head.firstVersion)
        }
    }

    /// Each session of a batch once (its rows are distinct, as one `ON CONFLICT DO UPDATE`
    /// statement needs): a new session is inserted, a known one moves its head.
    private static let sessionsUpsert = MultiRowInsert(
        table: "sessions",
        columns: [
            .int8("app_id"), .uuid("store_id"), .text("session_id"), .text("machine"), .text("definition"),
            .int8("head_version"), .int8("head_sequence"), .int8("record_count"), .int8("first_recorded_at_us"),
            .int8("last_recorded_at_us"), .text("last_event"), .int8("first_version"),
        ],
        suffix: """
            ON CONFLICT (app_id, store_id, session_id) DO UPDATE SET
                machine = EXCLUDED.machine, definition = EXCLUDED.definition,
                head_version = EXCLUDED.head_version, head_sequence = EXCLUDED.head_sequence,
                record_count = sessions.record_count + EXCLUDED.record_count,
                last_recorded_at_us = EXCLUDED.last_recorded_at_us, last_event = EXCLUDED.last_event
            """)

    /// The next sequence the server expects from `storeID` of app `appID` (1 when it holds none).
    public func position(storeID: UUID, appID: Int64) async throws -> UInt64 {
        let rows = try await client.rows(
            """
            SELECT next_sequence FROM stores WHERE app_id = \(appID) AND store_id = \(storeID)
            """, logger: logger)
        for next in try rows.decode(Int64.self) { return UInt64(next) }
        return 1
    }
}

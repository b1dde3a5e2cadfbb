import Foundation
import Logging
import PostgresNIO
@_spi(Internals) import Rewind
@_spi(Internals) import RewindStore
import ServiceLifecycle
import Synchronization

/// Folds the records of every store past its projections' checkpoints into `projection_states`,
/// with the built-in projections' own Swift code (``ServerProjections``): woken at start (once
/// the schema is migrated) and after each successful ingestion, it runs until every store is
/// caught up, then waits for the next wake-up. Stopped gracefully with the server (a store's
/// transaction in progress finishes first).
///
/// Each chunk of a store's records is folded in one PostgreSQL transaction that holds the store's
/// checkpoint rows (`SELECT … FOR UPDATE`): states and checkpoints commit together, and two
/// servers never fold the same records twice (the second waits, then starts from the first's
/// checkpoint).
final class ProjectionCatchUp: Service, Sendable {
    let database: DatabasePool
    let logger: Logger
    var client: PostgresClient { database.client }
    private let wakeUps: AsyncStream<Void>
    private let waker: AsyncStream<Void>.Continuation
    /// What the next pass folds: every store that is behind (at start, after a failed pass), or
    /// the stores that received records since the last pass.
    private let pending = Mutex<(everyStore: Bool, stores: [StoreRef], listed: Set<StoreRef>)>((false, [], []))

    /// The most records folded in one transaction.
    static let recordsPerTransaction: Int64 = 10_000
    /// How many stores are folded at once.
    static let concurrentStores = 2

    /// A catch-up service on `database` (its current client at each use).
    init(database: DatabasePool, logger: Logger) {
        self.database = database
        self.logger = logger
        (wakeUps, waker) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks for a pass over every store that is behind (several requests while a pass runs make
    /// one more pass).
    func wake() {
        pending.withLock { $0.everyStore = true }
        waker.yield()
    }

    /// Asks for a pass over the store `storeID` of app `appID`, which has received records.
    func wake(appID: Int64, storeID: UUID) {
        let store = StoreRef(appID: appID, storeID: storeID)
        pending.withLock { pending in
            if !pending.everyStore, pending.listed.insert(store).inserted { pending.stores.append(store) }
        }
        waker.yield()
    }

    /// Runs passes when woken, until the graceful shutdown.
    func run() async throws {
        for await _ in wakeUps.cancelOnGracefulShutdown() {
            do {
                try await catchUpAll()
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { break }
                logger.error(
                    "projection catch-up failed; retrying", metadata: ["error": "\(String(reflecting: error))"])
                // A failed pass (the database went away) is retried after a pause.
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
                wake()
            }
        }
    }

    /// A store to fold.
    struct StoreRef: Hashable, Sendable {
        var appID: Int64
        var storeID: UUID
    }

    /// Folds the stores asked for (every store that is behind, or those listed) until none is;
    /// returns how many records were read.
    @discardableResult
    func catchUpAll() async throws -> Int64 {
        let (everyStore, listed) = pending.withLock { pending in
            defer { pending = (false, [], []) }
            return (pending.everyStore, pending.stores)
        }
        let stores = everyStore ? try await storesBehind() : listed
        guard !stores.isEmpty else { return 0 }
        let start = ContinuousClock.now
        let folded = try await withThrowingTaskGroup(of: Int64.self) { group in
            var pending = stores[...]
            var total: Int64 = 0
            for _ in 0..<Self.concurrentStores {
                guard let store = pending.popFirst() else { break }
                group.addTask { try await self.catchUp(store) }
            }
            while let count = try await group.next() {
                total += count
                if Task.isShuttingDownGracefully { continue }
                if let store = pending.popFirst() { group.addTask { try await self.catchUp(store) } }
            }
            return total
        }
        logger.info(
            "projections caught up",
            metadata: [
                "stores": "\(stores.count)", "records": "\(folded)", "elapsed": "\(ContinuousClock.now - start)",
            ])
        return folded
    }

    /// The stores some projection is behind on (no checkpoint, another version, or a checkpoint
    /// before the store's last record and no failure).
    func storesBehind() async throws -> [StoreRef] {
        var stores: [StoreRef] = []
        var seen = Set<StoreRef>()
        for (name, version) in ServerProjections.all {
            let rows = try await client.rows(
                """
                SELECT s.app_id, s.store_id FROM stores s
                LEFT JOIN projection_checkpoints c
                    ON c.app_id = s.app_id AND c.store_id = s.store_id AND c.projection = \(name)
                WHERE s.next_sequence > 1 AND (c.version IS NULL OR c.version <> \(Int64(version))
                    OR (c.failure IS NULL AND c.sequence < s.next_sequence - 1))
                ORDER BY s.app_id, s.store_id
                """, logger: logger)
            for (appID, storeID) in try rows.decode((Int64, UUID).self) {
                let store = StoreRef(appID: appID, storeID: storeID)
                if seen.insert(store).inserted { stores.append(store) }
            }
        }
        return stores
    }

    /// Folds `store` up to its last record, a chunk per transaction; returns how many records
    /// were read.
    func catchUp(_ store: StoreRef) async throws -> Int64 {
        var total: Int64 = 0
        while true {
            let (read, progressed) = try await foldChunk(store)
            total += read
            if !progressed || Task.isShuttingDownGracefully { return total }
        }
    }

    /// Folds the next chunk of `store`'s records in one transaction. Returns how many records
    /// were read and whether any checkpoint moved.
    private func foldChunk(_ store: StoreRef) async throws -> (read: Int64, progressed: Bool) {
        let logger = self.logger
        let appID = store.appID
        let storeID = store.storeID
        return try await client.transaction(logger: logger) { connection -> (read: Int64, progressed: Bool) in
            try await connection.query(
                """
                INSERT INTO projection_checkpoints (app_id, store_id, projection, version)
                SELECT \(appID), \(storeID), p.name, p.version
                FROM unnest(\(ServerProjections.all.map(\.name))::text[], \(ServerProjections.all.map { Int64($0.version) })::bigint[])
                    AS p(name, version)
                ORDER BY p.name
                ON CONFLICT DO NOTHING
                """, logger: logger)
            // The lock that makes servers take turns on a store's projections.
            var stored: [String: (version: Int64, sequence: Int64, failure: String?)] = [:]
            for try await (name, version, sequence, failure) in try await connection.query(
                """
                SELECT projection, version, sequence, failure FROM projection_checkpoints
                WHERE app_id = \(appID) AND store_id = \(storeID) ORDER BY projection FOR UPDATE
                """, logger: logger
            ).decode((String, Int64, Int64, String?).self) {
                stored[name] = (version, sequence, failure)
            }
            var active: [(projection: any ServerProjecting, fold: ProjectionChunkFold)] = []
            for projection in ServerProjections.projections {
                guard let checkpoint = stored[projection.name] else { continue }
                if checkpoint.version != Int64(projection.version) {
                    // Another version of the projection: rebuilt from the first record.
                    logger.info(
                        "rebuilding projection",
                        metadata: [
                            "projection": "\(projection.name)", "store": "\(storeID)",
                            "from.version": "\(checkpoint.version)", "to.version": "\(projection.version)",
                        ])
                    try await connection.query(
                        """
                        DELETE FROM projection_states WHERE app_id = \(appID) AND store_id = \(storeID) AND projection = \(projection.name)
                        """, logger: logger)
                    try await connection.query(
                        """
                        UPDATE projection_checkpoints SET version = \(Int64(projection.version)), sequence = 0, failure = NULL, updated_at = now()
                        WHERE app_id = \(appID) AND store_id = \(storeID) AND projection = \(projection.name)
                        """, logger: logger)
                    active.append((projection, projection.makeFold(after: 0)))
                } else if checkpoint.failure == nil {
                    active.append((projection, projection.makeFold(after: checkpoint.sequence)))
                }
            }
            var head: Int64 = 0
            for try await next in try await connection.query(
                """
                SELECT next_sequence FROM stores WHERE app_id = \(appID) AND store_id = \(storeID)
                """, logger: logger
            ).decode(Int64.self) {
                head = next - 1
            }
            guard let start = active.map({ Int64($0.fold.checkpoint) }).min().map({ $0 + 1 }), start <= head else {
                return (0, false)
            }
            let end = min(head, start + Self.recordsPerTransaction - 1)

            var records: [TransitionRecord] = []
            records.reserveCapacity(Int(end - start + 1))
            for try await (sequence, bytes) in try await connection.query(
                """
                SELECT sequence, record FROM records
                WHERE app_id = \(appID) AND store_id = \(storeID) AND sequence BETWEEN \(start) AND \(end)
                ORDER BY sequence
                """, logger: logger
            ).decode((Int64, ByteBuffer).self) {
                // Records were checked when ingested: one that does not decode now was changed by
                // something else (a `PostgresLogError.damagedRecord`).
                records.append(
                    try PostgresTransitionLog.Reader.decode(bytes, sequence: sequence, storeID: store.storeID))
            }

            // Every projection is folded before anything is written: the first write's counting
            // trigger takes the app's lock (``FlowAggregates``) until commit, and other stores'
            // catch-ups of the app wait for it; what runs under it is one delete, one upsert and
            // one checkpoint update, whatever the number of projections.
            var written: [(projection: any ServerProjecting, states: [(key: String, bytes: [UInt8]?)])] = []
            var checkpoints: [(name: String, sequence: Int64, failure: String?)] = []
            var progressed = false
            for (projection, fold) in active {
                let before = fold.checkpoint
                let states = ChunkStates()
                // A projection at checkpoint 0 has no stored state in this store: its states are
                // written with its checkpoint's move (this transaction's form), and a rebuild
                // deletes them before it resets the checkpoint.
                if before > 0 {
                    try await Self.load(
                        fold.keys(of: records), of: fold.name, into: states, store: store, connection: connection,
                        logger: logger)
                }
                // The device's fold driver, over states in memory: nothing here waits on I/O.
                try fold.fold(records, reading: states)
                try fold.write(to: states)
                written.append((projection, states.written))
                if let error = fold.error {
                    logger.error(
                        "projection stopped on a record",
                        metadata: [
                            "projection": "\(fold.name)", "store": "\(storeID)", "failure": "\(error)",
                        ])
                }
                // Every sequence up to `end` was folded or holds no record (erased, on the device
                // or here): the checkpoint passes it unless the projection stopped on a record.
                let reached = fold.error == nil ? max(Int64(fold.checkpoint), end) : Int64(fold.checkpoint)
                checkpoints.append((fold.name, reached, fold.error?.description))
                progressed = progressed || reached > Int64(before)
            }
            try await Self.write(
                written, firstRecorded: Self.firstRecorded(records), store: store, connection: connection,
                logger: logger)
            var failures = PostgresColumnArray(element: .text, capacity: checkpoints.count)
            for checkpoint in checkpoints { try failures.append(checkpoint.failure) }
            try await connection.query(
                """
                UPDATE projection_checkpoints c SET sequence = u.sequence, failure = u.failure, updated_at = now()
                FROM unnest(\(checkpoints.map(\.name))::text[], \(checkpoints.map(\.sequence))::bigint[], \(failures)::text[])
                    AS u(projection, sequence, failure)
                WHERE c.app_id = \(appID) AND c.store_id = \(storeID) AND c.projection = u.projection
                """, logger: logger)
            return (Int64(records.count), progressed)
        }
    }

    /// When each session's first record of `records` was recorded: a state written for the first
    /// time keeps it (`first_recorded_at_us`, the trend's day a session started).
    private static func firstRecorded(_ records: [TransitionRecord]) -> [String: Int64] {
        var firstRecorded: [String: Int64] = [:]
        for record in records where firstRecorded[record.session.rawValue] == nil {
            firstRecorded[record.session.rawValue] = record.timestamp.microsecondsSince1970
        }
        return firstRecorded
    }

    /// Loads the stored states of `keys` of `projection` into `states`.
    private static func load(
        _ keys: [String], of projection: String, into states: ChunkStates, store: StoreRef,
        connection: PostgresConnection, logger: Logger
    ) async throws {
        guard !keys.isEmpty else { return }
        for try await (key, state) in try await connection.query(
            """
            SELECT key, state FROM projection_states
            WHERE app_id = \(store.appID) AND store_id = \(store.storeID) AND projection = \(projection) AND key = ANY(\(keys))
            """, logger: logger
        ).decode((String, ByteBuffer).self) {
            states.load(key: key, state: state)
        }
    }

    /// Writes every projection's changed states in one statement and deletes those the
    /// projections set to `nil` in one more (when there are any). A state's triggers keep the
    /// counts of ``FlowAggregates`` in step, in this transaction.
    private static func write(
        _ written: [(projection: any ServerProjecting, states: [(key: String, bytes: [UInt8]?)])],
        firstRecorded: [String: Int64], store: StoreRef, connection: PostgresConnection, logger: Logger
    ) async throws {
        let deleted = written.flatMap { projection, states in
            states.filter { $0.bytes == nil }.map { (projection.name, $0.key) }
        }
        if !deleted.isEmpty {
            try await connection.query(
                """
                DELETE FROM projection_states s
                USING unnest(\(deleted.map(\.0))::text[], \(deleted.map(\.1))::text[]) AS d(projection, key)
                WHERE s.app_id = \(store.appID) AND s.store_id = \(store.storeID) AND s.projection = d.projection
                    AND s.key = d.key
                """, logger: logger)
        }
        let rows = try written.flatMap { projection, states in
            try states.compactMap { entry in
                try entry.bytes.map { (projection.name, entry.key, $0, try projection.columns(ofStored: $0)) }
            }
        }
        try await statesUpsert.run(rows, on: connection, logger: logger) { entry, row in
            let (name, key, bytes, extracted) = entry
            try row.append(store.appID)
            try row.append(store.storeID)
            try row.append(name)
            try row.append(key)
            try row.append(bytes: bytes)
            try row.append(extracted.machine)
            try row.append(textArray: extracted.configuration)
            try row.append(extracted.updatedAtMicroseconds)
            try row.append(extracted.depth)
            try row.append(textArray: extracted.reached)
            try row.append(extracted.records)
            try row.append(firstRecorded[key])
        }
    }

    private static let statesUpsert = MultiRowInsert(
        table: "projection_states",
        columns: [
            .int8("app_id"), .uuid("store_id"), .text("projection"), .text("key"), .bytea("state"), .text("machine"),
            .textArray("configuration"), .int8("updated_at_us"), .int4("depth"), .textArray("reached"),
            .int8("records"), .int8("first_recorded_at_us"),
        ],
        suffix: """
            ON CONFLICT (app_id, store_id, projection, key) DO UPDATE SET state = EXCLUDED.state,
                machine = EXCLUDED.machine, configuration = EXCLUDED.configuration,
                updated_at_us = EXCLUDED.updated_at_us, depth = EXCLUDED.depth, reached = EXCLUDED.reached,
                records = EXCLUDED.records,
                first_recorded_at_us = coalesce(projection_states.first_recorded_at_us, EXCLUDED.first_recorded_at_us)
            """)
}

import Logging
import PostgresNIO

/// One versioned change of the server's schema: SQL statements applied together, in one
/// transaction, and recorded in `schema_migrations`.
public struct Migration: Sendable {
    /// The migration's number; migrations apply in increasing order, each once.
    public var version: Int
    /// What the migration does, for the log and `schema_migrations`.
    public var name: String
    /// The statements, run in order (constants of this file: never built from input).
    public var statements: [String]
}

/// The server's schema, as an ordered list of migrations, and the code that brings a database up
/// to date at start.
public enum Migrations {
    /// Every migration, in order. Append new ones; never edit one that has shipped.
    public static let all: [Migration] = [
        Migration(
            version: 1, name: "apps, keys, stores, records, definitions, sessions",
            statements: [
                """
                CREATE TABLE apps (
                    id bigserial PRIMARY KEY,
                    name text NOT NULL UNIQUE,
                    created_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                // A key's secret is stored as its SHA-256 only; `kind` says what it may do.
                """
                CREATE TABLE api_keys (
                    key_id text PRIMARY KEY,
                    app_id bigint NOT NULL REFERENCES apps (id),
                    kind text NOT NULL CHECK (kind IN ('ingest', 'read')),
                    secret_sha256 bytea NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    revoked_at timestamptz
                )
                """,
                // One row per device store of an app: the next global sequence the server expects.
                // Ingestion locks this row, so uploads of one store are serialized.
                """
                CREATE TABLE stores (
                    app_id bigint NOT NULL REFERENCES apps (id),
                    store_id uuid NOT NULL,
                    next_sequence bigint NOT NULL DEFAULT 1,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    updated_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (app_id, store_id)
                )
                """,
                // The device's records, byte for byte (`record`), with their fields for queries.
                """
                CREATE TABLE records (
                    app_id bigint NOT NULL,
                    store_id uuid NOT NULL,
                    sequence bigint NOT NULL,
                    session_id text NOT NULL,
                    version bigint NOT NULL,
                    machine text NOT NULL,
                    definition text NOT NULL,
                    event text NOT NULL,
                    recorded_at_us bigint NOT NULL,
                    received_at timestamptz NOT NULL DEFAULT now(),
                    record bytea NOT NULL,
                    PRIMARY KEY (app_id, store_id, sequence),
                    FOREIGN KEY (app_id, store_id) REFERENCES stores (app_id, store_id)
                )
                """,
                "CREATE INDEX records_by_session ON records (app_id, store_id, session_id, version)",
                // Machine definitions (JSON interchange documents) by name and content version.
                """
                CREATE TABLE definitions (
                    app_id bigint NOT NULL REFERENCES apps (id),
                    machine text NOT NULL,
                    content_version text NOT NULL,
                    document bytea NOT NULL,
                    received_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (app_id, machine, content_version)
                )
                """,
                // One row per session of a store: its head, kept by ingestion in the same transaction.
                """
                CREATE TABLE sessions (
                    app_id bigint NOT NULL,
                    store_id uuid NOT NULL,
                    session_id text NOT NULL,
                    machine text NOT NULL,
                    definition text NOT NULL,
                    head_version bigint NOT NULL,
                    head_sequence bigint NOT NULL,
                    record_count bigint NOT NULL,
                    first_recorded_at_us bigint NOT NULL,
                    last_recorded_at_us bigint NOT NULL,
                    last_event text NOT NULL,
                    PRIMARY KEY (app_id, store_id, session_id),
                    FOREIGN KEY (app_id, store_id) REFERENCES stores (app_id, store_id)
                )
                """,
                "CREATE INDEX sessions_by_machine ON sessions (app_id, machine, store_id, session_id)",
            ]),
        Migration(
            version: 2, name: "projection states and checkpoints",
            statements: [
                // Each built-in projection's checkpoint per device store: the projection's version
                // (another version is rebuilt from the first record) and the last sequence folded.
                // Catch-up locks these rows (FOR UPDATE), so two servers never fold one store at once.
                // Derived data: no foreign key to `stores`, whose row ingestion holds locked, so
                // catch-up never waits for an upload of the store.
                """
                CREATE TABLE projection_checkpoints (
                    app_id bigint NOT NULL,
                    store_id uuid NOT NULL,
                    projection text NOT NULL,
                    version bigint NOT NULL,
                    sequence bigint NOT NULL DEFAULT 0,
                    failure text,
                    updated_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (app_id, store_id, projection)
                )
                """,
                // A projection's state per key (a session id for the built-in ones), as the
                // projection's own `encode` writes it (`state`), with columns extracted from it for
                // SQL filters: machine, active configuration, last update (µs), stack depth.
                """
                CREATE TABLE projection_states (
                    app_id bigint NOT NULL,
                    store_id uuid NOT NULL,
                    projection text NOT NULL,
                    key text NOT NULL,
                    state bytea NOT NULL,
                    machine text,
                    configuration text[],
                    updated_at_us bigint,
                    depth integer,
                    PRIMARY KEY (app_id, store_id, projection, key)
                )
                """,
                "CREATE INDEX projection_states_by_machine ON projection_states (app_id, projection, machine, updated_at_us)",
                "CREATE INDEX sessions_by_update ON sessions (app_id, last_recorded_at_us)",
            ]),
        Migration(
            version: 3, name: "erasure: erase keys, tombstones, erased sequences, retention",
            statements: [
                // A third kind of key: erasure requests of the app team (POST /v1/erasures).
                "ALTER TABLE api_keys DROP CONSTRAINT api_keys_kind_check",
                "ALTER TABLE api_keys ADD CONSTRAINT api_keys_kind_check CHECK (kind IN ('ingest', 'read', 'erase'))",
                // How long the app's sessions are kept after their last record (NULL: for ever).
                "ALTER TABLE apps ADD COLUMN retention_seconds bigint CHECK (retention_seconds > 0)",
                // The key of the app's tombstone hashes: 32 random bytes (gen_random_uuid draws from
                // PostgreSQL's strong random source), never shown.
                """
                ALTER TABLE apps ADD COLUMN tombstone_key bytea NOT NULL
                    DEFAULT (uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()))
                """,
                // The sequences of the store that were erased (on the device or here), coalesced
                // ranges, and the number of the last erasure notice of the device applied.
                "ALTER TABLE stores ADD COLUMN erased_sequences int8multirange NOT NULL DEFAULT '{}'",
                "ALTER TABLE stores ADD COLUMN erasure_notices_through bigint NOT NULL DEFAULT 0",
                // A session whose history before a version was erased on the device (its base).
                "ALTER TABLE sessions ADD COLUMN first_version bigint NOT NULL DEFAULT 1",
                "ALTER TABLE sessions ADD COLUMN history_erased_at timestamptz",
                // Erasure finds a session in every store of the app.
                "CREATE INDEX sessions_by_session ON sessions (app_id, session_id)",
                // An erased session, kept as a keyed hash of its id only (rewind_session_hash).
                """
                CREATE TABLE tombstones (
                    app_id bigint NOT NULL REFERENCES apps (id),
                    session_hash bytea NOT NULL,
                    erased_at timestamptz NOT NULL,
                    origin text NOT NULL CHECK (origin IN ('device', 'request')),
                    PRIMARY KEY (app_id, session_hash)
                )
                """,
                // The one definition of a tombstone's hash: SHA-256 of the app's 32-byte key followed
                // by the session id's UTF-8.
                """
                CREATE FUNCTION rewind_session_hash(app bigint, session text) RETURNS bytea
                    LANGUAGE sql STABLE STRICT
                    AS $$ SELECT sha256(tombstone_key || convert_to(session, 'UTF8')) FROM apps WHERE id = app $$
                """,
            ]),
        Migration(
            version: 4, name: "trimmed sessions: the base their history begins at",
            statements: [
                // The snapshot (SessionSnapshot's JSON) at first_version of a session whose history
                // before it is gone (trimmed on the device, here or before its upload): replay begins
                // there. NULL for a session whose history begins at version 1, and for one that
                // arrived trimmed from a device that sent no base (replay answers 410).
                "ALTER TABLE sessions ADD COLUMN base_snapshot bytea"
            ]),
        Migration(
            version: 5, name: "sessions in natural order",
            statements: [
                // Session ids compared with their digits as numbers (`kanji-12` before `kanji-102`),
                // ICU's numeric collation; deterministic, so ids that differ only in leading zeros
                // still differ. The session lists (and their keyset cursors) order by it.
                "CREATE COLLATION rewind_natural (provider = icu, locale = 'und-u-kn-true')",
                """
                CREATE INDEX sessions_in_natural_order ON sessions (app_id, store_id, session_id COLLATE rewind_natural)
                """,
            ]),
        Migration(
            version: 6, name: "counts of the screen flows and navigation stacks, kept by triggers",
            statements: FlowAggregates.migration),
    ]

    /// The advisory lock key that serializes servers migrating the same database at once.
    static let lockKey: Int64 = 0x5265_7769_6E64_0001

    /// A database whose schema is newer than this server knows.
    public struct NewerSchemaError: Error, CustomStringConvertible {
        /// The highest version applied to the database.
        public var databaseVersion: Int
        /// The highest version this server knows.
        public var knownVersion: Int
        /// Describes the error.
        public var description: String {
            "the database's schema is at version \(databaseVersion), newer than this server's \(knownVersion): run a newer rewind-server"
        }
    }

    /// Applies the migrations `database` has not had yet, in one transaction, and returns their
    /// versions. Safe to run again (nothing to do) and from several servers at once (an advisory
    /// lock makes them take turns).
    ///
    /// - Throws: ``NewerSchemaError`` when the database has a migration this server does not
    ///   know; PostgreSQL's errors (nothing applied).
    @discardableResult
    public static func apply(
        _ migrations: [Migration] = Migrations.all, to client: PostgresClient, logger: Logger
    ) async throws -> [Int] {
        try await client.transaction(logger: logger) { connection -> [Int] in
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """, logger: logger)
            var applied = Set<Int>()
            for try await version in try await connection.query(
                "SELECT version FROM schema_migrations", logger: logger
            ).decode(Int.self) {
                applied.insert(version)
            }
            let known = migrations.map(\.version).max() ?? 0
            if let newest = applied.max(), newest > known {
                throw NewerSchemaError(databaseVersion: newest, knownVersion: known)
            }
            var done: [Int] = []
            for migration in migrations.sorted(by: { $0.version < $1.version })
            where !applied.contains(migration.version) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                    logger: logger)
                logger.info(
                    "applied schema migration",
                    metadata: [
                        "migration.version": "\(migration.version)", "migration.name": "\(migration.name)",
                    ])
                done.append(migration.version)
            }
            return done
        }
    }
}

/// Counts of the projections' states kept up to date by PostgreSQL itself, so that funnels, the
/// trend, the fleet page's totals and the stack statistics cost O(states × days), not O(sessions)
/// (issue 32; `docs/architecture/fleet.md`, "The fleet page's queries and what they cost").
///
/// Three tables, written only by statement-level triggers on `projection_states`:
/// - `flow_days`: screen-flow sessions per (app, machine, day of the last record, day of the first
///   record, active configuration), with the sum of their versions (their records);
/// - `flow_reached_days`: per (app, machine, day of the last record, state), the sessions that
///   reached the state;
/// - `stack_depths`: navigation sessions per (app, machine, stack depth).
///
/// The triggers read the statement's transition tables (`old_rows`, `new_rows`): every row a
/// statement removes is subtracted and every row it adds is added, in one `INSERT … ON CONFLICT`
/// per table, in the same transaction as the states. So whatever writes `projection_states` (the
/// catch-up's fold and rebuild, erasure, retention) keeps the counts exact, with no code of its
/// own. Before it counts, a trigger takes the app's advisory lock (``lockClass``, the app id),
/// held to the end of the transaction: the transactions that change one app's counts take turns
/// from their first count to their commit, so two catch-ups never lock each other's count rows
/// in opposite orders (they did: PostgreSQL found deadlocks between the catch-up's two concurrent
/// stores, whose several statements per transaction each lock rows in key order). Counts that
/// fall to zero stay as rows of zero (they are summed).
///
/// Days are UTC days since 1970 (`rewind_day`). A screen-flow row counts only once the catch-up
/// has written its `reached`, `records` and `first_recorded_at_us` columns (migration 6); a
/// navigation row once it has a `depth`.
enum FlowAggregates {
    /// The first key of the advisory locks the counting triggers take per app (the second is the
    /// app id): "rewi" in ASCII.
    static let lockClass: Int32 = 0x7265_7769

    /// The statements of migration 6.
    static let migration: [String] =
        [
            """
            ALTER TABLE projection_states ADD COLUMN reached text[], ADD COLUMN records bigint,
                ADD COLUMN first_recorded_at_us bigint
            """,
            // Floor division: days before 1970 are negative, as the page's day arithmetic.
            """
            CREATE FUNCTION rewind_day(us bigint) RETURNS bigint LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $$ SELECT (us - ((us % 86400000000) + 86400000000) % 86400000000) / 86400000000 $$
            """,
            """
            CREATE TABLE flow_days (
                app_id bigint NOT NULL,
                machine text NOT NULL,
                day bigint NOT NULL,
                first_day bigint NOT NULL,
                configuration text[] NOT NULL,
                sessions bigint NOT NULL,
                records bigint NOT NULL,
                PRIMARY KEY (app_id, machine, day, first_day, configuration)
            )
            """,
            """
            CREATE TABLE flow_reached_days (
                app_id bigint NOT NULL,
                machine text NOT NULL,
                day bigint NOT NULL,
                state text NOT NULL,
                sessions bigint NOT NULL,
                PRIMARY KEY (app_id, machine, day, state)
            )
            """,
            """
            CREATE TABLE stack_depths (
                app_id bigint NOT NULL,
                machine text NOT NULL,
                depth integer NOT NULL,
                sessions bigint NOT NULL,
                PRIMARY KEY (app_id, machine, depth)
            )
            """,
        ]
        + counting(name: "insert", event: "INSERT", transitions: "NEW TABLE AS new_rows", sources: [("new_rows", 1)])
        + counting(
            name: "update", event: "UPDATE", transitions: "OLD TABLE AS old_rows NEW TABLE AS new_rows",
            sources: [("old_rows", -1), ("new_rows", 1)])
        + counting(name: "delete", event: "DELETE", transitions: "OLD TABLE AS old_rows", sources: [("old_rows", -1)])
        + [
            // The stacks are counted from the states already stored; the screen flows are folded
            // again from the first record (their new columns are the fold's), at the server's start.
            """
            INSERT INTO stack_depths (app_id, machine, depth, sessions)
            SELECT app_id, machine, depth, count(*) FROM projection_states
            WHERE depth IS NOT NULL AND machine IS NOT NULL GROUP BY app_id, machine, depth
            """,
            // The projection's name written out, as it was when this migration shipped: a database
            // applies a migration once, so its text must not follow later renames (a rename needs a
            // migration of its own).
            "DELETE FROM projection_states WHERE projection = 'rewind.screen-flows'",
            """
            UPDATE projection_checkpoints SET sequence = 0, failure = NULL, updated_at = now()
            WHERE projection = 'rewind.screen-flows'
            """,
        ]

    /// The trigger function and the trigger counting one kind of change: `sources` are the
    /// transition tables and the sign their rows are counted with (a statement can have at most
    /// one trigger with transition tables per event, so each event has its own).
    private static func counting(
        name: String, event: String, transitions: String, sources: [(table: String, sign: Int)]
    )
        -> [String]
    {
        /// The changed rows matching `filter`, as `columns` and the sign they are counted with.
        func rows(_ columns: String, where filter: String) -> String {
            sources.map { "SELECT \(columns), \($0.sign) AS sign FROM \($0.table) WHERE \(filter)" }
                .joined(separator: " UNION ALL ")
        }
        let flows = "reached IS NOT NULL AND machine IS NOT NULL AND updated_at_us IS NOT NULL"
        let flowRows = rows(
            """
            app_id, machine, rewind_day(updated_at_us) AS day,
                rewind_day(coalesce(first_recorded_at_us, updated_at_us)) AS first_day,
                coalesce(configuration, '{}') AS configuration, coalesce(records, 0) AS records
            """, where: flows)
        let reachedRows = rows(
            "app_id, machine, rewind_day(updated_at_us) AS day, unnest(reached) AS state", where: flows)
        let depthRows = rows("app_id, machine, depth", where: "depth IS NOT NULL AND machine IS NOT NULL")
        let function = "rewind_count_\(name)"
        return [
            """
            CREATE FUNCTION \(function)() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_advisory_xact_lock(\(lockClass), (app_id % 2147483647)::integer)
                FROM (SELECT DISTINCT app_id FROM (\(rows("app_id", where: "true"))) c ORDER BY app_id) apps;
                INSERT INTO flow_days AS a (app_id, machine, day, first_day, configuration, sessions, records)
                SELECT app_id, machine, day, first_day, configuration, sum(sign), sum(sign * records)
                FROM (\(flowRows)) c
                GROUP BY app_id, machine, day, first_day, configuration
                HAVING sum(sign) <> 0 OR sum(sign * records) <> 0
                ORDER BY app_id, machine, day, first_day, configuration
                ON CONFLICT (app_id, machine, day, first_day, configuration) DO UPDATE
                    SET sessions = a.sessions + EXCLUDED.sessions, records = a.records + EXCLUDED.records;
                INSERT INTO flow_reached_days AS a (app_id, machine, day, state, sessions)
                SELECT app_id, machine, day, state, sum(sign) FROM (\(reachedRows)) c
                GROUP BY app_id, machine, day, state HAVING sum(sign) <> 0
                ORDER BY app_id, machine, day, state
                ON CONFLICT (app_id, machine, day, state) DO UPDATE SET sessions = a.sessions + EXCLUDED.sessions;
                INSERT INTO stack_depths AS a (app_id, machine, depth, sessions)
                SELECT app_id, machine, depth, sum(sign) FROM (\(depthRows)) c
                GROUP BY app_id, machine, depth HAVING sum(sign) <> 0
                ORDER BY app_id, machine, depth
                ON CONFLICT (app_id, machine, depth) DO UPDATE SET sessions = a.sessions + EXCLUDED.sessions;
                RETURN NULL;
            END $$
            """,
            """
            CREATE TRIGGER projection_states_count_\(name) AFTER \(event) ON projection_states
            REFERENCING \(transitions) FOR EACH STATEMENT EXECUTE FUNCTION \(function)()
            """,
        ]
    }
}

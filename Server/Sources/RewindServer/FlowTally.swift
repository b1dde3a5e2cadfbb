import Foundation
import Logging
import PostgresNIO
import Rewind

/// The screen-flow sessions of an app whose last record is in a range, counted per machine: the
/// numbers behind the funnels (`GET /v1/machines/{machine}/funnel`) and the fleet page's machine
/// list, totals, funnels and trend. Read by ``FleetQueries/tally(appID:machine:range:)``.
struct FlowTally: Sendable, Equatable {
    /// Sessions that share their last record's day, their first record's day and their active
    /// configuration.
    struct Group: Hashable, Sendable {
        /// The day (UTC, days since 1970) of the sessions' last record.
        var day: Int64
        /// The day of their first record.
        var firstDay: Int64
        var configuration: [String]
    }

    /// One machine's counts.
    struct Machine: Sendable, Equatable {
        var sessions: Int64 = 0
        /// The sum of the sessions' versions: their records.
        var records: Int64 = 0
        /// For each state, the sessions that have been in it.
        var reached: [String: Int64] = [:]
        /// The sessions by group.
        var groups: [Group: Int64] = [:]
    }

    /// The counts by machine (machines without a session in the range are left out).
    var machines: [String: Machine] = [:]

    /// Adds `sessions` sessions of `machine` in `group`, with `records` records.
    mutating func add(machine: String, _ group: Group, sessions: Int64, records: Int64) {
        guard sessions != 0 || records != 0 else { return }
        machines[machine, default: Machine()].sessions += sessions
        machines[machine, default: Machine()].records += records
        machines[machine, default: Machine()].groups[group, default: 0] += sessions
    }

    /// Adds `sessions` sessions of `machine` that reached `state`.
    mutating func add(machine: String, reached state: String, sessions: Int64) {
        guard sessions != 0 else { return }
        machines[machine, default: Machine()].reached[state, default: 0] += sessions
    }

    /// `machine`'s funnel: its sessions, how many reached each state and how many are in it now
    /// (states with none are left out, as a device's ``ScreenFlows/funnel(machine:)`` leaves them).
    func funnel(_ machine: String) -> Funnel {
        var funnel = Funnel(machine: machine)
        guard let counts = machines[machine] else { return funnel }
        funnel.sessions = Int(counts.sessions)
        for (state, sessions) in counts.reached where sessions > 0 { funnel.reached[state] = Int(sessions) }
        for (group, sessions) in counts.groups where sessions > 0 {
            for state in group.configuration { funnel.stoppedAt[state, default: 0] += Int(sessions) }
        }
        return funnel
    }

    /// `machine`'s sessions by day, oldest first: how many started that day, and how many finished
    /// (whose active configuration holds one of `finishing`) on the day of their last record.
    /// Days without either are left out.
    func trend(_ machine: String, finishing: [String]) -> [FleetDay] {
        let finishing = Set(finishing)
        var days: [Int64: FleetDay] = [:]
        for (group, sessions) in machines[machine]?.groups ?? [:] where sessions > 0 {
            days[group.firstDay, default: FleetDay(day: group.firstDay, started: 0, finished: 0)].started += sessions
            if !finishing.isDisjoint(with: group.configuration) {
                days[group.day, default: FleetDay(day: group.day, started: 0, finished: 0)].finished += sessions
            }
        }
        return days.values.sorted { $0.day < $1.day }
    }
}

extension TimeRange {
    /// The range as whole UTC days (`nil` when it holds none; a bound `nil` when the range has
    /// none) and the parts of days at its ends, each with both bounds.
    var days: (whole: (from: Int64?, to: Int64?)?, partial: [TimeRange]) {
        let length = FleetQueries.microsecondsPerDay
        // The first day starting at or after `from`, the first day past `to`.
        let first = from.map { $0 / length + ($0 % length > 0 ? 1 : 0) }
        let end = to.map { $0 / length - ($0 % length < 0 ? 1 : 0) }
        let firstStart = first.map { $0.multipliedReportingOverflow(by: length) }
        let endStart = end.map { $0.multipliedReportingOverflow(by: length) }
        if firstStart?.overflow == true || endStart?.overflow == true {
            return (nil, [self])
        }
        if let first, let end, first >= end {
            if let from, let to, from >= to { return (nil, []) }
            return (nil, [self])
        }
        var partial: [TimeRange] = []
        if let from, let start = firstStart?.partialValue, from < start {
            partial.append(TimeRange(from: from, to: start))
        }
        if let to, let start = endStart?.partialValue, start < to { partial.append(TimeRange(from: start, to: to)) }
        return ((first, end), partial)
    }
}

extension FleetQueries {
    /// The app's screen-flow sessions whose last record is in `range`, of `machine` (every machine
    /// when `nil`), counted: the whole days from ``FlowAggregates``' counts, the parts of days at
    /// the range's ends from `projection_states`' columns, grouped as the counts are. Two queries,
    /// each O(states × days) plus the sessions of the partial days.
    func tally(appID: Int64, machine: String?, range: TimeRange) async throws -> FlowTally {
        let flows = ServerProjections.screenFlows.projection.name
        let (whole, partial) = range.days
        let counted = whole != nil
        let (wholeFrom, wholeTo) = (whole?.from, whole?.to)
        let (firstFrom, firstTo) = (partial.first?.from, partial.first?.to)
        let (lastFrom, lastTo) = (partial.dropFirst().first?.from, partial.dropFirst().first?.to)
        var tally = FlowTally()
        for (name, day, firstDay, configuration, sessions, records) in try await client.rows(
            """
            SELECT machine, day, first_day, configuration, sessions, records FROM flow_days
            WHERE \(counted) AND app_id = \(appID) AND (\(machine)::text IS NULL OR machine = \(machine))
                AND (\(wholeFrom)::bigint IS NULL OR day >= \(wholeFrom))
                AND (\(wholeTo)::bigint IS NULL OR day < \(wholeTo))
            UNION ALL
            SELECT machine, rewind_day(updated_at_us), rewind_day(coalesce(first_recorded_at_us, updated_at_us)),
                coalesce(configuration, '{}'), count(*)::bigint, coalesce(sum(records), 0)::bigint
            FROM projection_states
            WHERE app_id = \(appID) AND projection = \(flows) AND reached IS NOT NULL AND machine IS NOT NULL
                AND (\(machine)::text IS NULL OR machine = \(machine))
                AND ((updated_at_us >= \(firstFrom) AND updated_at_us < \(firstTo))
                    OR (updated_at_us >= \(lastFrom) AND updated_at_us < \(lastTo)))
            GROUP BY 1, 2, 3, 4
            """, logger: logger
        ).decode((String, Int64, Int64, [String], Int64, Int64).self) {
            tally.add(
                machine: name, FlowTally.Group(day: day, firstDay: firstDay, configuration: configuration),
                sessions: sessions, records: records)
        }
        for (name, state, sessions) in try await client.rows(
            """
            SELECT machine, state, sum(sessions)::bigint FROM flow_reached_days
            WHERE \(counted) AND app_id = \(appID) AND (\(machine)::text IS NULL OR machine = \(machine))
                AND (\(wholeFrom)::bigint IS NULL OR day >= \(wholeFrom))
                AND (\(wholeTo)::bigint IS NULL OR day < \(wholeTo))
            GROUP BY 1, 2
            UNION ALL
            SELECT machine, r.name, count(*)::bigint FROM projection_states, unnest(reached) AS r(name)
            WHERE app_id = \(appID) AND projection = \(flows) AND reached IS NOT NULL AND machine IS NOT NULL
                AND (\(machine)::text IS NULL OR machine = \(machine))
                AND ((updated_at_us >= \(firstFrom) AND updated_at_us < \(firstTo))
                    OR (updated_at_us >= \(lastFrom) AND updated_at_us < \(lastTo)))
            GROUP BY 1, 2
            """, logger: logger
        ).decode((String, String, Int64).self) {
            tally.add(machine: name, reached: state, sessions: sessions)
        }
        return tally
    }
}

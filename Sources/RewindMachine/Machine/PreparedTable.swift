import Foundation
import Synchronization

/// The outcome of every prepared event in every configuration of a machine, computed once: what
/// a send with a ``PreparedEvent`` looks up instead of running the SCXML algorithm.
///
/// Rows are the configurations a chart can be in (enumerated from its structure: one per atomic
/// state without parallel regions, products of the regions' configurations with them), up to a
/// bound; columns are the event names the chart's transitions and ignore lists name, plus one
/// for every name none of them matches. Each entry is found by running the general algorithm
/// once on that configuration and name in *probe* mode, which runs none of the app's code: when
/// the outcome depends on anything but the configuration and the name (a named guard, an action,
/// the history memory, a configuration beyond the table's rows, an event loop), the entry is
/// *dynamic* and a send falls back to the general algorithm, which gives the same result.
final class PreparedTable: Sendable {
    /// What a prepared send does in one configuration for one event name.
    struct Entry: Sendable {
        enum Kind: UInt8, Sendable {
            /// The outcome depends on more than the configuration: run the general algorithm.
            case dynamic
            /// Move to the configuration of row ``target`` (see ``move``).
            case move
            /// No transition handles the event and no active state ignores it.
            case unhandled
            /// No transition handles the event, and an active state ignores it.
            case ignored
        }

        var kind: Kind
        /// Whether the move enters a top-level final state (the machine is then finished).
        var finishes = false
        /// How many ids the configurations before and after the move share at their start (they
        /// are kept as they are).
        var kept: UInt16 = 0
        /// The row of the configuration after the move.
        var target: Int32 = -1
        /// The index of the move in ``PreparedTable/moves``.
        var move: Int32 = -1

        static let dynamic = Entry(kind: .dynamic)
    }

    /// What a move reports: the macrostep's exits, entries and navigation, as a ``Step`` would,
    /// and the microsteps of a step on an event with exactly the column's name and no payload.
    struct Move: Sendable {
        var exited: [String]
        var entered: [String]
        var navigation: [NavigationOperation]
        var microsteps: [Microstep]
    }

    /// The most configurations a table holds, and the most entries (rows × columns).
    static let rowLimit = 1_024
    static let entryLimit = 16_384
    /// A probe costs about one visit of every state; the probes of one table visit at most this
    /// many states (about 20 ms of compiling in a release build), the entries beyond are dynamic.
    static let probeVisitLimit = 500_000

    let chart: CompiledChart
    /// A number no other table in the process has: prepared events and summaries name their table
    /// by it (so they hold no reference, and one from another machine is never mistaken).
    let serial: UInt64
    /// The ids of row `r`'s configuration are `rowIDs[rowStart[r] ..< rowStart[r + 1]]`.
    let rowIDs: [String]
    let rowStart: [Int]
    /// Each row's configuration as an array of its own, shared by the steps that reach it.
    let rows: [[String]]
    let rowIndex: [[String]: Int32]
    /// The column of each event name that has one of its own.
    let columns: EventColumnIndex
    /// The column shared by every name that no transition descriptor and no ignored descriptor
    /// matches (but `*`); `-1` when there is none.
    let otherColumn: Int32
    let columnCount: Int
    /// `entries[row * columnCount + column]`.
    let entries: [Entry]
    let moves: [Move]
    /// The longest configuration among the rows.
    let longestRow: Int

    init(chart: CompiledChart, microstepLimit: Int) {
        self.chart = chart
        self.serial = Self.serials.next()

        var names: [String] = []
        var seen: Set<String> = []
        for transition in chart.transitions {
            for descriptor in transition.events where descriptor != "*" && seen.insert(descriptor).inserted {
                names.append(descriptor)
            }
        }
        for ignored in chart.ignoredEvents.joined() {
            let name = ChartCompiler.normalise(ignored)
            if name != "*", seen.insert(name).inserted { names.append(name) }
        }
        let columns = EventColumnIndex(names)
        let otherName = "\u{0}unmatched"
        let otherColumn: Int32 = Self.matchesOnlyWildcards(otherName, in: chart) ? Int32(names.count) : -1
        if otherColumn >= 0 { names.append(otherName) }
        self.columns = columns
        self.otherColumn = otherColumn
        self.columnCount = names.count

        let rowLimit = max(1, min(Self.rowLimit, Self.entryLimit / max(1, names.count)))
        let configurations = Self.configurations(of: 0, in: chart, limit: rowLimit)
        var rowIDs: [String] = []
        var rowStart: [Int] = [0]
        var rowIndex: [[String]: Int32] = [:]
        var rows: [[String]] = []
        for configuration in configurations {
            let ids = configuration.map { chart.ids[$0] }
            rowIndex[ids] = Int32(rows.count)
            rows.append(ids)
            rowIDs.append(contentsOf: ids)
            rowStart.append(rowIDs.count)
        }
        self.rowIDs = rowIDs
        self.rowStart = rowStart
        self.rowIndex = rowIndex
        self.longestRow = rows.map(\.count).max() ?? 0
        self.rows = rows

        var entries: [Entry] = []
        entries.reserveCapacity(rows.count * names.count)
        var moves: [Move] = []
        var probesLeft = Self.probeVisitLimit / chart.count
        for row in rows {
            let active = row.compactMap { chart.index[$0] }
            for name in names {
                if !active.contains(where: { state in
                    chart.stateTransitions[state].contains { chart.transitions[$0].matches(name) }
                }) {
                    // No active state has a transition on the name: nothing to run.
                    let ignored = active.contains { state in
                        chart.ignoredEvents[state].contains { Event.name(name, matches: $0) }
                    }
                    entries.append(Entry(kind: ignored ? .ignored : .unhandled))
                    continue
                }
                guard probesLeft > 0 else {
                    entries.append(.dynamic)
                    continue
                }
                probesLeft -= 1
                entries.append(
                    Self.probe(
                        Event(name), in: row, chart: chart, microstepLimit: microstepLimit, rowIndex: rowIndex,
                        moves: &moves))
            }
        }
        self.entries = entries
        self.moves = moves
    }

    // MARK: Lookup

    /// The column of the event named `name`; `-1` when it has none (the general algorithm then
    /// runs for it).
    func column(for name: String) -> Int32 {
        if let column = columns.column(of: name) { return column }
        return Self.matchesOnlyWildcards(name, in: chart) ? otherColumn : -1
    }

    /// The row of `state`'s configuration, from its hint when it is right (then no id is
    /// hashed), else from the index (and the hint is updated); `nil` when the table has no such
    /// row.
    @inline(__always)
    func row(of state: inout MachineState) -> Int? {
        let hint = Int(state.configurationHint.row)
        if hint >= 0, hint + 1 < rowStart.count, holds(state.configuration, atRow: hint) { return hint }
        guard let row = rowIndex[state.configuration] else { return nil }
        state.configurationHint.row = row
        return Int(row)
    }

    @inline(__always)
    private func holds(_ configuration: [String], atRow row: Int) -> Bool {
        let start = rowStart[row]
        guard configuration.count == rowStart[row + 1] - start else { return false }
        for position in configuration.indices where configuration[position] != rowIDs[start + position] {
            return false
        }
        return true
    }

    @inline(__always)
    func entry(row: Int, column: Int) -> Entry {
        entries[row * columnCount + column]
    }

    /// Applies a move to `state`: the target configuration written in place after the ids it
    /// keeps (no allocation when the configuration's storage is not shared), the exited states'
    /// data dropped, the machine finished when it entered a top-level final state, and the hint
    /// set.
    @inline(__always)
    func apply(_ entry: Entry, to state: inout MachineState) {
        if !state.data.isEmpty {
            for id in moves[Int(entry.move)].exited { state.data[id] = nil }
        }
        let target = Int(entry.target)
        let start = rowStart[target]
        let count = rowStart[target + 1] - start
        let kept = Int(entry.kept)
        if state.configuration.count == count {
            for position in kept..<count { state.configuration[position] = rowIDs[start + position] }
        } else {
            state.configuration.reserveCapacity(longestRow)
            state.configuration.removeSubrange(kept...)
            state.configuration.append(contentsOf: rowIDs[(start + kept)..<(start + count)])
        }
        if entry.finishes { state.isFinished = true }
        state.configurationHint.row = entry.target
    }

    /// Applies a move to `state` as ``apply(_:to:)`` does, but shares the row's configuration
    /// array instead of writing into the state's (which a ``Step``'s source still holds).
    func share(_ entry: Entry, into state: inout MachineState) {
        if !state.data.isEmpty {
            for id in moves[Int(entry.move)].exited { state.data[id] = nil }
        }
        state.configuration = rows[Int(entry.target)]
        if entry.finishes { state.isFinished = true }
        state.configurationHint.row = entry.target
    }

    /// Whether every id in `history` (keys and remembered states) is one of the chart's states,
    /// as the general algorithm checks when it loads a state.
    func isValid(_ history: [String: [String]]) -> Bool {
        history.allSatisfy { key, remembered in
            chart.index[key] != nil && remembered.allSatisfy { chart.index[$0] != nil }
        }
    }

    // MARK: Building

    /// Whether the only descriptors (of transitions and ignore lists) matching `name` are `*`.
    private static func matchesOnlyWildcards(_ name: String, in chart: CompiledChart) -> Bool {
        for transition in chart.transitions where !transition.matchesEveryEvent && transition.matches(name) {
            return false
        }
        for ignored in chart.ignoredEvents.joined() where ignored != "*" && Event.name(name, matches: ignored) {
            return false
        }
        return true
    }

    /// The configurations of the subtree of `state` (its own index first, then document order),
    /// at most `limit` of them.
    private static func configurations(of state: Int, in chart: CompiledChart, limit: Int) -> [[Int]] {
        switch chart.kind[state] {
        case .atomic, .final:
            return [[state]]
        case .history:
            return []
        case .root, .compound:
            var result: [[Int]] = []
            let own = state == 0 ? [] : [state]
            for child in chart.children[state] {
                for configuration in configurations(of: child, in: chart, limit: limit - result.count) {
                    result.append(own + configuration)
                    if result.count >= limit { return result }
                }
            }
            return result
        case .parallel:
            var result: [[Int]] = [[state]]
            for child in chart.children[state] {
                let regions = configurations(of: child, in: chart, limit: limit)
                var product: [[Int]] = []
                combining: for prefix in result {
                    for region in regions {
                        product.append(prefix + region)
                        if product.count >= limit { break combining }
                    }
                }
                result = product
            }
            return result
        }
    }

    /// Runs the general algorithm in probe mode on `configuration` and `event`, and turns the
    /// outcome into an entry (appending its move to `moves`).
    private static func probe(
        _ event: Event, in configuration: [String], chart: CompiledChart, microstepLimit: Int,
        rowIndex: [[String]: Int32], moves: inout [Move]
    ) -> Entry {
        do {
            var evaluation = try Evaluation(
                chart: chart, state: MachineState(configuration: configuration), microstepLimit: microstepLimit,
                now: .zero)
            evaluation.isProbe = true
            let handled = try evaluation.process(event)
            guard !evaluation.probeHitDynamicContent else { return .dynamic }
            guard handled else { return Entry(kind: evaluation.ignores(event) ? .ignored : .unhandled) }
            guard evaluation.internalQueue.isEmpty, evaluation.pendingSends.isEmpty, evaluation.logs.isEmpty,
                let target = rowIndex[evaluation.configuration]
            else { return .dynamic }
            let microsteps = evaluation.microsteps
            moves.append(
                Move(
                    exited: microsteps.flatMap(\.exited), entered: microsteps.flatMap(\.entered),
                    navigation: microsteps.flatMap(\.navigation), microsteps: microsteps))
            let kept = zip(configuration, evaluation.configuration).prefix { $0 == $1 }.count
            return Entry(
                kind: .move, finishes: evaluation.isFinished, kept: UInt16(clamping: kept), target: target,
                move: Int32(moves.count - 1))
        } catch {
            // An event loop (the microstep limit): the general algorithm reports it.
            return .dynamic
        }
    }
}

extension PreparedTable {
    /// The source of table serial numbers: 1, 2, 3… for the life of the process.
    final class Serials: Sendable {
        /// The last serial handed out.
        private let last = Mutex<UInt64>(0)

        func next() -> UInt64 {
            last.withLock { last in
                last += 1
                return last
            }
        }
    }

    static let serials = Serials()
}

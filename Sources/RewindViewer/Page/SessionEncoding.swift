import Foundation
import Rewind

/// A recorded session in the page's compact form, built from the replay engine's own points
/// (``ReplayCursor`` stepping from version 0 to the head): the browser looks values up in it,
/// it never re-runs a machine.
///
/// The encoding (one JSON object; the script reads it as `S`):
/// - `strings`: every event name, state id, screen and navigation operation, once; other fields
///   refer to them by index.
/// - `values`: every distinct JSON value (payloads, state data, contexts, screens' data), once.
/// - `configs`: each distinct active configuration as `[[state…], [active atomic state…]]`.
/// - `base` (only for a trimmed session): the real version of index 1, the session's base. The
///   columns and lists below number versions by index (1…N; index 0 is the empty state before
///   version 1, which a trimmed session's page does not show); the script labels index *i* as
///   version `base + i - 1`.
/// - Columns with one entry per version 1…N: `dt` (milliseconds since the previous record; the
///   first is 0, `t0` is the first record's time in milliseconds since 1970), `ev` (event),
///   `cf` (configuration; version 0 is the empty configuration).
/// - Change lists `[version, index, version, index, …]`, written only where the value changes:
///   `dat` (state data), `ctx` (context), `nav` (navigation stack, an index into `stacks`, each
///   `[[screen, data value or -1], …]`); and per-version sparse lists: `pl` (payload, where not
///   null), `ops` (navigation operations as text), `src` (source configuration where it is not the
///   previous version's), `tr` (the diagram transition taken).
struct SessionEncoding {
    private var strings: [String] = []
    private var stringIndex: [String: Int] = [:]
    private var values: [JSONValue] = []
    private var valueIndex: [JSONValue: Int] = [:]
    private var configs: [[[Int]]] = [[[], []]]
    private var configIndex: [[String]: Int] = [[]: 0]
    private var stacks: [[[Int]]] = [[]]
    private var stackIndex: [[NavigationEntry]: Int] = [[]: 0]

    private var firstTime: Int64?
    private var lastTime: Int64 = 0
    private var deltas: [Int64] = []
    private var events: [Int] = []
    private var configurationColumn: [Int] = [0]
    private var dataChanges: [Int] = []
    private var contextChanges: [Int] = []
    private var navigationChanges: [Int] = []
    private var payloads: [Int] = []
    private var operations: [Int] = []
    private var sources: [Int] = []
    private var taken: [Int] = []

    private var lastData: [String: JSONValue] = [:]
    private var lastContext: JSONValue = .null
    private var lastStack: [NavigationEntry] = []
    private var lastConfiguration: [String] = []

    let session: String
    let machine: String
    private(set) var head: UInt64 = 0
    /// The versions before the first point appended: a trimmed session's base minus 1, else 0.
    private(set) var offset: UInt64 = 0

    init(session: String, machine: String) {
        self.session = session
        self.machine = machine
    }

    private mutating func string(_ text: String) -> Int {
        if let index = stringIndex[text] { return index }
        strings.append(text)
        stringIndex[text] = strings.count - 1
        return strings.count - 1
    }

    private mutating func value(_ value: JSONValue) -> Int {
        if let index = valueIndex[value] { return index }
        values.append(value)
        valueIndex[value] = values.count - 1
        return values.count - 1
    }

    private mutating func config(_ configuration: [String], active: [String]) -> Int {
        if let index = configIndex[configuration] { return index }
        configs.append([configuration.map { string($0) }, active.map { string($0) }])
        configIndex[configuration] = configs.count - 1
        return configs.count - 1
    }

    /// Adds the next version (`point.version` must be the previous one plus 1; the first one
    /// appended is version 1, or a trimmed session's base), its values
    /// already redacted; `transition` is the diagram's index of the transition it took.
    mutating func append(
        _ point: ReplayPoint, stateData: [String: JSONValue], context: JSONValue,
        payload: JSONValue, navigation: [NavigationEntry], transition: Int?
    ) {
        if events.isEmpty { offset = point.version - 1 }
        let version = Int(point.version - offset)
        head = point.version - offset
        let time = (point.timestamp?.microsecondsSince1970 ?? 0) / 1000
        if firstTime == nil {
            firstTime = time
            lastTime = time
        }
        deltas.append(time - lastTime)
        lastTime = time
        events.append(string(point.event ?? ""))
        configurationColumn.append(config(point.configuration, active: point.activeStates))
        if point.source != lastConfiguration {
            sources.append(contentsOf: [version, config(point.source, active: [])])
        }
        lastConfiguration = point.configuration
        if !payload.isNull { payloads.append(contentsOf: [version, value(payload)]) }
        if stateData != lastData || version == 1 {
            dataChanges.append(contentsOf: [version, value(.object(stateData))])
            lastData = stateData
        }
        if context != lastContext || version == 1 {
            contextChanges.append(contentsOf: [version, value(context)])
            lastContext = context
        }
        if navigation != lastStack {
            let index: Int
            if let known = stackIndex[navigation] {
                index = known
            } else {
                stacks.append(navigation.map { [string($0.screen), $0.data.isNull ? -1 : value($0.data)] })
                index = stacks.count - 1
                stackIndex[navigation] = index
            }
            navigationChanges.append(contentsOf: [version, index])
            lastStack = navigation
        }
        let performed = point.navigationOperations.filter { $0 != .none }
        if !performed.isEmpty {
            operations.append(contentsOf: [version, string(performed.map(\.description).joined(separator: ", "))])
        }
        if let transition { taken.append(contentsOf: [version, transition]) }
    }

    /// Writes the encoding as one JSON object, each value of the table passed through `sweep`
    /// (``Redaction/sweep(_:)``).
    func write(
        to writer: inout PageJSONWriter, sweep: (JSONValue) -> JSONValue = { $0 },
        extra: (inout PageJSONWriter) -> Void = { _ in }
    ) {
        writer.raw("{")
        writer.key("session", first: true)
        writer.string(session)
        writer.key("machine")
        writer.string(machine)
        writer.key("head")
        writer.integer(head)
        if offset > 0 {
            writer.key("base")
            writer.integer(offset + 1)
        }
        writer.key("t0")
        writer.integer(firstTime ?? 0)
        writer.key("strings")
        writer.array(strings) { $0.string($1) }
        writer.key("values")
        writer.array(values) { $0.value(sweep($1)) }
        writer.key("configs")
        writer.array(configs) { writer, config in
            writer.array(config) { $0.integers($1) }
        }
        writer.key("stacks")
        writer.array(stacks) { writer, stack in
            writer.array(stack) { $0.integers($1) }
        }
        writer.key("dt")
        writer.integers(deltas)
        writer.key("ev")
        writer.integers(events)
        writer.key("cf")
        writer.integers(configurationColumn)
        writer.key("src")
        writer.integers(sources)
        writer.key("pl")
        writer.integers(payloads)
        writer.key("dat")
        writer.integers(dataChanges)
        writer.key("ctx")
        writer.integers(contextChanges)
        writer.key("nav")
        writer.integers(navigationChanges)
        writer.key("ops")
        writer.integers(operations)
        writer.key("tr")
        writer.integers(taken)
        extra(&writer)
        writer.raw("}")
    }
}

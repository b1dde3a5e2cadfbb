import RewindStore
@_spi(Internals) import RewindValues

/// ``ScreenFlowProjection``'s step of the fold driver (``ProjectionFold``): each session's
/// ``ScreenFlowProjection/Flow`` is changed in place by the one fold step
/// (``ScreenFlowProjection/Flow/fold(_:into:strings:)``, which ``ScreenFlowProjection/apply(_:to:)``
/// runs on whole records too), and over a borrowed record view (catch-ups and rebuilds) straight
/// from the record's bytes, with state ids, events and machine names interned (equal ones share
/// one `String`). A rebuild then allocates nothing per record in the steady state.
struct ScreenFlowFoldStep: ProjectionFoldStep {
    let projection: ScreenFlowProjection
    /// Machine names, events and state ids seen so far.
    private var strings = UTF8KeyTable(startingOverPast: ScreenFlowFoldStep.maximumInternedStrings)

    /// The most distinct strings interned before the table starts over (bounds its memory).
    static let maximumInternedStrings = 100_000

    init(projection: ScreenFlowProjection) {
        self.projection = projection
    }

    var name: String { projection.name }

    func key(for record: TransitionRecord) -> String? { projection.key(for: record) }

    func apply(_ record: TransitionRecord, to state: inout ScreenFlowProjection.Flow?) {
        projection.apply(record, to: &state)
    }

    func key(of view: RecordView) -> ViewKey { .key(view.sessionBytes) }

    mutating func apply(_ view: RecordView, to state: inout ScreenFlowProjection.Flow?) {
        ScreenFlowProjection.Flow.fold(view, into: &state, strings: &strings)
    }

    func encode(_ state: ScreenFlowProjection.Flow, into buffer: inout [UInt8]) {
        projection.encode(state, into: &buffer)
    }

    func decode(_ bytes: UnsafeRawBufferPointer) throws -> ScreenFlowProjection.Flow { try projection.decode(bytes) }
}

// MARK: - The fold step

/// What the screen-flow fold step reads from a record: a whole ``TransitionRecord``
/// (``ScreenFlowProjection/apply(_:to:)``, inline runs) or a borrowed ``RecordView`` (catch-up runs
/// and rebuilds). Fields are compared with the flow's as UTF-8 bytes and copied only when they
/// differ.
protocol ScreenFlowSource {
    /// Where the source's strings come from: nothing for a record (its own strings are kept), a
    /// ``UTF8KeyTable`` interning a view's bytes.
    associatedtype Strings
    /// The session's version after the record.
    var version: UInt64 { get }
    /// The record's time.
    var timestamp: Timestamp { get }
    /// Whether the machine's name is exactly the UTF-8 of `machine`.
    func machineIsUTF8(of machine: String) -> Bool
    /// The machine's name.
    func machineName(_ strings: inout Strings) -> String
    /// Whether the event is exactly the UTF-8 of `event`.
    func eventIsUTF8(of event: String) -> Bool
    /// The event.
    func eventName(_ strings: inout Strings) -> String
    /// Whether the state data is exactly `data`.
    func stateDataEquals(_ data: [UInt8]) -> Bool
    /// Replaces `data` with the record's state data.
    func replaceStateData(_ data: inout [UInt8])
    /// Whether the target is exactly the UTF-8 of `configuration`, in order.
    func targetIsUTF8(of configuration: [String]) -> Bool
    /// Replaces `configuration` with the record's target.
    func replaceConfiguration(_ configuration: inout [String], strings: inout Strings)
}

extension ScreenFlowProjection.Flow {
    /// The one fold step of ``ScreenFlowProjection``: moves the session's flow (`nil` before its
    /// first record) to the record's target, adding the target's states to ``reached``.
    @inline(__always)
    static func fold<Source: ScreenFlowSource>(
        _ record: Source, into state: inout Self?, strings: inout Source.Strings
    ) {
        if state != nil {
            // Changed in place (optional chaining), so its arrays stay uniquely referenced.
            state?.update(from: record, strings: &strings)
        } else {
            var configuration: [String] = []
            record.replaceConfiguration(&configuration, strings: &strings)
            var stateData: [UInt8] = []
            record.replaceStateData(&stateData)
            state = Self(
                machine: record.machineName(&strings), configuration: configuration, stateData: stateData,
                lastEvent: record.eventName(&strings), updated: record.timestamp, version: record.version,
                reached: configuration.sorted())
        }
    }

    @inline(__always)
    private mutating func update<Source: ScreenFlowSource>(from record: Source, strings: inout Source.Strings) {
        if !record.machineIsUTF8(of: machine) {
            // The old name is kept when the new one is equal as a String (canonically).
            let newMachine = record.machineName(&strings)
            if machine != newMachine { machine = newMachine }
        }
        if !record.stateDataEquals(stateData) { record.replaceStateData(&stateData) }
        if !record.eventIsUTF8(of: lastEvent) { lastEvent = record.eventName(&strings) }
        updated = record.timestamp
        version = record.version
        // The same configuration (byte for byte) was reached by the previous record already.
        guard !record.targetIsUTF8(of: configuration) else { return }
        record.replaceConfiguration(&configuration, strings: &strings)
        for id in configuration {
            let position = ScreenFlowProjection.insertionPoint(of: id, in: reached)
            if position == reached.count || reached[position] != id {
                reached.insert(id, at: position)
            }
        }
    }
}

extension TransitionRecord: ScreenFlowSource {
    typealias Strings = Void

    func machineIsUTF8(of machine: String) -> Bool { self.machine.hasSameUTF8(as: machine) }
    func machineName(_ strings: inout Void) -> String { machine }
    func eventIsUTF8(of event: String) -> Bool { self.event.hasSameUTF8(as: event) }
    func eventName(_ strings: inout Void) -> String { event }
    func stateDataEquals(_ data: [UInt8]) -> Bool { stateData == data }
    func replaceStateData(_ data: inout [UInt8]) { data = stateData }

    func targetIsUTF8(of configuration: [String]) -> Bool {
        guard target.count == configuration.count else { return false }
        for (id, current) in zip(target, configuration) where !id.hasSameUTF8(as: current) { return false }
        return true
    }

    func replaceConfiguration(_ configuration: inout [String], strings: inout Void) { configuration = target }
}

extension RecordView: ScreenFlowSource {
    typealias Strings = UTF8KeyTable

    func machineIsUTF8(of machine: String) -> Bool { machineBytes.equalsUTF8(of: machine) }
    func machineName(_ strings: inout UTF8KeyTable) -> String { strings.string(machineBytes) }
    func eventIsUTF8(of event: String) -> Bool { eventBytes.equalsUTF8(of: event) }
    func eventName(_ strings: inout UTF8KeyTable) -> String { strings.string(eventBytes) }
    func stateDataEquals(_ data: [UInt8]) -> Bool { data.withUnsafeBytes { $0.equals(stateDataBytes) } }

    func replaceStateData(_ data: inout [UInt8]) {
        data.removeAll(keepingCapacity: true)
        data.append(contentsOf: stateDataBytes)
    }

    func targetIsUTF8(of configuration: [String]) -> Bool { target.equalsUTF8(of: configuration) }

    func replaceConfiguration(_ configuration: inout [String], strings: inout UTF8KeyTable) {
        configuration.removeAll(keepingCapacity: true)
        configuration.reserveCapacity(target.count)
        for id in target { configuration.append(strings.string(id)) }
    }
}

extension String {
    /// Whether this string's UTF-8 is exactly `other`'s (not Unicode equivalence, which `==` is).
    @inline(__always)
    fileprivate func hasSameUTF8(as other: String) -> Bool {
        var copy = self
        return copy.withUTF8 { UnsafeRawBufferPointer($0).equalsUTF8(of: other) }
    }
}

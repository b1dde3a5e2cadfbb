import RewindMachine
import RewindStore
import RewindValues

/// One machine's ``RedactedField``s, parsed, with the key of their keyed hashes: what turns the
/// values a session holds into the values it records. The engine makes one per machine named in
/// ``EngineConfiguration/redaction`` when it opens, and gives it to that machine's
/// `StepRecording`; a machine without one records its values as they are (no work per send).
///
/// Every function is idempotent: a value already redacted (the marker, a keyed hash) is left as it
/// is, so the state a resumed session continues from (the recorded one) and a fork's copies stay
/// as they were written.
package struct Redactor: Sendable {
    /// A parsed field.
    struct Field: Sendable {
        var rule: RedactionRule
        var action: RedactionAction
    }

    let fields: [Field]
    /// The HMAC-SHA-256 key of ``RedactionAction/keyedHash`` (the store's secret).
    private let key: [UInt8]
    private let redactsPayloads: Bool
    private let redactsData: Bool
    private let redactsContext: Bool

    /// The prefix of a keyed hash's text.
    package static let hashPrefix = "‹hash:"
    /// The suffix of a keyed hash's text.
    package static let hashSuffix = "›"
    /// How many bytes of the HMAC a keyed hash shows (as twice as many hex digits).
    static let hashBytes = 16

    init(fields: [Field], key: [UInt8]) {
        self.fields = fields
        self.key = key
        redactsPayloads = fields.contains { $0.rule.root == .payload }
        redactsData = fields.contains { $0.rule.root == .data }
        redactsContext = fields.contains { $0.rule.root == .context }
    }

    /// Every machine's fields of `policy`, parsed.
    ///
    /// - Throws: ``RedactionPolicyError`` for the first path that does not parse, naming its
    ///   machine (machines in name order).
    static func fields(of policy: RedactionPolicy) throws(RedactionPolicyError) -> [String: [Field]] {
        var parsed: [String: [Field]] = [:]
        for machine in policy.machines.keys.sorted() {
            var fields: [Field] = []
            for field in policy.machines[machine] ?? [] {
                do {
                    fields.append(Field(rule: try RedactionRule(field.path), action: field.action))
                } catch {
                    throw RedactionPolicyError(machine: machine, path: field.path, reason: error.reason)
                }
            }
            if !fields.isEmpty { parsed[machine] = fields }
        }
        return parsed
    }

    /// Whether `value` is what redaction writes: the marker or a keyed hash.
    package static func isRedacted(_ value: JSONValue) -> Bool {
        guard case .string(let text) = value else { return false }
        return text == RedactionRule.markerText
            || (text.hasPrefix(hashPrefix) && text.hasSuffix(hashSuffix))
    }

    /// The keyed hash `value` is written as: `‹hash:` and the first ``hashBytes`` bytes of the
    /// HMAC-SHA-256 of its canonical JSON (sorted keys) in lowercase hex, then `›`.
    func keyedHash(of value: JSONValue) -> JSONValue {
        let bytes = (try? value.jsonBytes()) ?? Array(String(describing: value).utf8)
        let code = HMACSHA256.authenticationCode(of: bytes, key: key)
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(Self.hashBytes * 2)
        for byte in code.prefix(Self.hashBytes) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0f)])
        }
        return .string(Self.hashPrefix + String(decoding: hex, as: UTF8.self) + Self.hashSuffix)
    }

    // MARK: Values

    /// `value`, the whole value under `root`, with the fields of that root redacted; `changed` is
    /// set when a value was replaced or removed.
    func redact(_ root: RedactionRule.Root, _ value: JSONValue, changed: inout Bool) -> JSONValue {
        var value = value
        for field in fields where field.rule.root == root {
            value = field.rule.transform(value) { _, original in
                if Self.isRedacted(original) { return original }
                changed = true
                switch field.action {
                case .dropped: return nil
                case .marker: return RedactionRule.placeholder
                case .keyedHash: return keyedHash(of: original)
                }
            }
        }
        return value
    }

    /// Data by state id (or by screen), redacted by the `data` fields.
    func redact(data: [String: JSONValue], changed: inout Bool) -> [String: JSONValue] {
        guard redactsData, !data.isEmpty else { return data }
        guard case .object(let members) = redact(.data, .object(data), changed: &changed) else { return data }
        return members
    }

    /// The data of state `id` (an `enter`'s data), redacted by the `data` fields; `.null` when
    /// dropped.
    func redact(dataOf id: String, _ value: JSONValue, changed: inout Bool) -> JSONValue {
        guard redactsData, !value.isNull else { return value }
        return redact(data: [id: value], changed: &changed)[id] ?? .null
    }

    /// An event with its payload redacted by the `payload` fields.
    func redact(_ event: Event, changed: inout Bool) -> Event {
        guard redactsPayloads, !event.payload.isNull else { return event }
        var event = event
        event.payload = redact(.payload, event.payload, changed: &changed)
        return event
    }

    /// A machine state as it is recorded: its context, its states' data and the payloads of its
    /// queued and pending events redacted.
    func redact(_ state: MachineState, changed: inout Bool) -> MachineState {
        var state = state
        if redactsContext, !state.context.isNull { state.context = redact(.context, state.context, changed: &changed) }
        if redactsData { state.data = redact(data: state.data, changed: &changed) }
        if redactsPayloads {
            for index in state.internalQueue.indices {
                state.internalQueue[index] = redact(state.internalQueue[index], changed: &changed)
            }
            for index in state.pendingSends.indices {
                state.pendingSends[index].event = redact(state.pendingSends[index].event, changed: &changed)
            }
        }
        return state
    }

    /// A navigation stack as it is recorded: each entry's data redacted as the data of the state
    /// named like its screen.
    func redact(_ navigation: ScreenStack, changed: inout Bool) -> ScreenStack {
        guard redactsData, navigation.entries.contains(where: { !$0.data.isNull }) else { return navigation }
        return ScreenStack(
            entries: navigation.entries.map { entry in
                NavigationEntry(screen: entry.screen, data: redact(dataOf: entry.screen, entry.data, changed: &changed))
            })
    }

    /// A snapshot as it is stored: its state and navigation stack redacted.
    func redact(_ snapshot: SessionSnapshot, changed: inout Bool) -> SessionSnapshot {
        var snapshot = snapshot
        snapshot.state = redact(snapshot.state, changed: &changed)
        snapshot.navigation = redact(snapshot.navigation, changed: &changed)
        return snapshot
    }

    /// Whether `snapshot` holds a value its record would not: a live state that differs from the
    /// recorded one, so a replay of the next record may not see what the session saw.
    func differs(_ snapshot: SessionSnapshot) -> Bool {
        var changed = false
        _ = redact(snapshot, changed: &changed)
        return changed
    }

    /// `request` as it is recorded: `rewind.start`'s context by the `context` fields, an event's
    /// (and a due send's) payload by the `payload` fields, an `enter`'s data as the data of the
    /// state it enters, a migration's state and stack as snapshots are.
    func redact(_ request: StepRecording.Request, changed: inout Bool) -> StepRecording.Request {
        switch request {
        case .start(let context):
            guard redactsContext else { return request }
            return .start(context: redact(.context, context, changed: &changed))
        case .send(let event):
            return .send(redact(event, changed: &changed))
        case .enter(let state, let data):
            return .enter(state: state, data: redact(dataOf: state, data, changed: &changed))
        case .deliverDue(let event):
            return .deliverDue(redact(event, changed: &changed))
        case .migrate(let migration):
            return .migrate(redact(migration, changed: &changed))
        }
    }

    /// A migration as its `rewind.migrate` record holds it: its state and stack as snapshots are.
    func redact(_ migration: RecordedMigration, changed: inout Bool) -> RecordedMigration {
        var migration = migration
        migration.state = redact(migration.state, changed: &changed)
        migration.navigation = redact(migration.navigation, changed: &changed)
        return migration
    }
}

import Foundation
import Rewind

/// A set of ``RedactionRule``s applied to a session's values, remembering every concrete path it
/// replaced (for the page's list of what was redacted).
///
/// A value often travels: a payload becomes an entered state's data, a context field is copied
/// into a screen's data. So every string a rule replaced is also replaced wherever else it occurs
/// in the session's values (``sweep(_:)``); numbers and booleans are replaced only where a rule
/// matches (a `3` elsewhere is not the same secret).
public struct Redaction: Sendable {
    /// The rules.
    public var rules: [RedactionRule]
    /// The concrete paths replaced so far (`payload.card.number`, `data.profile.email`).
    public private(set) var redactedPaths: Set<String> = []
    /// The strings the rules replaced so far.
    public private(set) var redactedStrings: Set<String> = []
    /// The rules that replaced at least one value so far.
    public private(set) var matchedRules: Set<RedactionRule> = []

    /// The rules that replaced nothing so far, in the order given: after a page is made, a path
    /// mistyped (`data.*.usr` for `data.*.user`) or naming a field the session does not have.
    public var unmatchedRules: [RedactionRule] { rules.filter { !matchedRules.contains($0) } }
    /// Strings ``sweep(_:)`` leaves alone: the machine's state ids and event names, which its
    /// payloads name (an `enter`'s target) and replay needs.
    public private(set) var protectedStrings: Set<String> = []

    /// Leaves `definition`'s state ids and event names alone when sweeping.
    public mutating func protect(_ definition: MachineDefinition) {
        func walk(_ states: [StateDefinition]) {
            for state in states {
                protectedStrings.insert(state.id)
                for transition in state.transitions { protectedStrings.formUnion(transition.events) }
                walk(state.children)
            }
        }
        walk(definition.states)
    }

    /// A redaction by `rules`.
    public init(_ rules: [RedactionRule]) {
        self.rules = rules
    }

    /// A redaction by the paths `paths` (`payload.card.*`).
    ///
    /// - Throws: ``RedactionRuleError`` for the first path that does not parse.
    public init(paths: [String]) throws(RedactionRuleError) {
        var rules: [RedactionRule] = []
        for path in paths { rules.append(try RedactionRule(path)) }
        self.init(rules)
    }

    /// Whether there is nothing to redact.
    public var isEmpty: Bool { rules.isEmpty }

    /// `value` (the whole value under `root`) with every matching rule applied.
    public mutating func apply(_ root: RedactionRule.Root, to value: JSONValue) -> JSONValue {
        var value = value
        var found: Set<String> = []
        var strings: Set<String> = []
        for rule in rules where rule.root == root {
            var matched = false
            value = rule.apply(to: value) { path, original in
                matched = true
                found.insert(path)
                Self.collectStrings(of: original, into: &strings)
            }
            if matched { matchedRules.insert(rule) }
        }
        if !found.isEmpty {
            redactedPaths.formUnion(found)
            redactedStrings.formUnion(strings)
        }
        return value
    }

    /// `value` with every string leaf that a rule replaced somewhere (``redactedStrings``)
    /// replaced by the placeholder.
    public func sweep(_ value: JSONValue) -> JSONValue {
        guard !redactedStrings.isEmpty else { return value }
        switch value {
        case .string(let text):
            return redactedStrings.contains(text) && !protectedStrings.contains(text)
                ? RedactionRule.placeholder : value
        case .array(let elements):
            return .array(elements.map(sweep))
        case .object(let members):
            return .object(members.mapValues(sweep))
        default:
            return value
        }
    }

    private static func collectStrings(of value: JSONValue, into strings: inout Set<String>) {
        switch value {
        case .string(let text): strings.insert(text)
        case .array(let elements): for element in elements { collectStrings(of: element, into: &strings) }
        case .object(let members): for member in members.values { collectStrings(of: member, into: &strings) }
        default: break
        }
    }

    /// State data by state id, redacted by the `data` rules.
    public mutating func apply(toStateData data: [String: JSONValue]) -> [String: JSONValue] {
        guard rules.contains(where: { $0.root == .data }) else { return data }
        guard case .object(let redacted) = apply(.data, to: .object(data)) else { return data }
        return redacted
    }

    /// A navigation stack's entries with each entry's data redacted by the `data` rules, as the
    /// data of the state named like its screen.
    public mutating func apply(toNavigation entries: [NavigationEntry]) -> [NavigationEntry] {
        guard rules.contains(where: { $0.root == .data }) else { return entries }
        return entries.map { entry in
            guard !entry.data.isNull,
                case .object(let wrapped) = apply(.data, to: .object([entry.screen: entry.data])),
                let data = wrapped[entry.screen]
            else { return entry }
            return NavigationEntry(screen: entry.screen, data: data)
        }
    }

    /// `archive` (a ``SessionArchive``) with the payload and state data rules applied to every
    /// record and, in a trimmed session's archive (format version 3), every rule to its base
    /// state (context, state data, navigation, queued events), then every string redacted so far swept out
    /// (``sweep(_:)``; apply the rules to the session's values first so that the strings found in
    /// its context are known), re-checksummed by the archive writer
    /// (``SessionArchive/rewritten(_:changingBase:changing:)``), so it still validates and imports.
    public mutating func apply(toArchive archive: Data) throws -> Data {
        guard !isEmpty else { return archive }
        var copy = self
        _ = try SessionArchive.rewritten(archive, changingBase: { copy.apply(toBase: &$0, sweeping: false) }) {
            values in
            if let payload = values.payload { values.payload = copy.apply(.payload, to: payload) }
            if let data = values.stateData { values.stateData = copy.apply(.data, to: data) }
        }
        let swept = copy
        let result = try SessionArchive.rewritten(
            archive,
            changingBase: { base in
                var pass = swept
                pass.apply(toBase: &base, sweeping: true)
            }
        ) { values in
            var pass = swept
            if let payload = values.payload { values.payload = pass.sweep(pass.apply(.payload, to: payload)) }
            if let data = values.stateData { values.stateData = pass.sweep(pass.apply(.data, to: data)) }
        }
        self = copy
        return result
    }

    /// A trimmed session's base snapshot with the rules applied to its context (`context`), its
    /// state data and navigation entries' data (`data`) and its queued and scheduled events'
    /// payloads (`payload`), then, when `sweeping`, every string redacted so far swept out of
    /// those values. Its configuration and history memory (state ids) are kept.
    mutating func apply(toBase snapshot: inout SessionSnapshot, sweeping: Bool) {
        let sweepIfAsked: (JSONValue) -> JSONValue = { [self] in sweeping ? sweep($0) : $0 }
        var state = snapshot.state
        state.context = sweepIfAsked(apply(.context, to: state.context))
        state.data = apply(toStateData: state.data).mapValues(sweepIfAsked)
        for index in state.internalQueue.indices {
            state.internalQueue[index].payload = sweepIfAsked(apply(.payload, to: state.internalQueue[index].payload))
        }
        for index in state.pendingSends.indices {
            state.pendingSends[index].event.payload = sweepIfAsked(
                apply(.payload, to: state.pendingSends[index].event.payload))
        }
        snapshot.state = state
        snapshot.navigation = ScreenStack(
            entries: apply(toNavigation: snapshot.navigation.entries).map {
                NavigationEntry(screen: $0.screen, data: sweepIfAsked($0.data))
            })
    }
}

extension Redaction {
    /// Throws ``ViewerError/unmatchedRedactions(paths:)`` when `required` and a rule matched
    /// nothing so far.
    func requireEveryRuleMatched(_ required: Bool) throws(ViewerError) {
        let unmatched = unmatchedRules
        if required, !unmatched.isEmpty { throw ViewerError.unmatchedRedactions(paths: unmatched.map(\.description)) }
    }
}

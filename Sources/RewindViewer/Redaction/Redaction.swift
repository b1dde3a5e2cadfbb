import Foundation
import Rewind

/// A set of ``RedactionRule``s applied to a session's values, remembering every concrete path it
/// replaced (for the page's list of what was redacted).
public struct Redaction: Sendable {
    /// The rules.
    public var rules: [RedactionRule]
    /// The concrete paths replaced so far (`payload.card.number`, `data.profile.email`).
    public private(set) var redactedPaths: Set<String> = []

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
        for rule in rules where rule.root == root {
            value = rule.apply(to: value) { found.insert($0) }
        }
        if !found.isEmpty { redactedPaths.formUnion(found) }
        return value
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
    /// record, re-checksummed by the archive writer (``SessionArchive/rewritten(_:changing:)``),
    /// so it still validates and imports.
    public mutating func apply(toArchive archive: Data) throws -> Data {
        guard !isEmpty else { return archive }
        var copy = self
        let result = try SessionArchive.rewritten(archive) { values in
            if let payload = values.payload { values.payload = copy.apply(.payload, to: payload) }
            if let data = values.stateData { values.stateData = copy.apply(.data, to: data) }
        }
        self = copy
        return result
    }
}

import RewindValues

/// A JSON path into a session's values: `payload.card.*`, `data.*.email`, `context.token`,
/// `payload.items.*.price`. The one path language of redaction, before write (a machine's
/// ``RedactedField``s in ``EngineConfiguration/redaction``) and at view time (the viewer's
/// `Redaction`, `rewind view --redact`).
///
/// The first segment names the value: `payload` (the event's payload), `data` (the state data,
/// keyed by state id; it also covers the navigation stack's entries, keyed by screen, and the
/// data recorded for entered states) or `context` (the machine's context). Each further segment is
/// an object key or an array index; `*` matches every key of an object and every element of an
/// array. The value the path ends at is replaced whole, whatever its type.
public struct RedactionRule: Sendable, Hashable, CustomStringConvertible {
    /// Which of a version's values a rule applies to.
    public enum Root: String, Sendable, Hashable, CaseIterable {
        /// The event's payload.
        case payload
        /// The state data (by state id) and the navigation entries' data (by screen).
        case data
        /// The machine's context.
        case context
    }

    /// One step of a path.
    public enum Segment: Sendable, Hashable {
        /// An object key, or an array index when it is a decimal number.
        case key(String)
        /// Every key of an object, every element of an array.
        case wildcard
    }

    /// The value the rule applies to.
    public var root: Root
    /// The steps into it.
    public var segments: [Segment]

    /// The placeholder a redacted value becomes: the viewer's, and the marker of
    /// ``RedactionAction/marker`` in the log.
    public static let placeholder = JSONValue.string(markerText)

    /// The text of ``placeholder``.
    public static let markerText = "‹redacted›"

    /// Parses `path` (`payload.card.*`).
    ///
    /// - Throws: ``RedactionRuleError`` saying what is wrong with it.
    public init(_ path: String) throws(RedactionRuleError) {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let first = parts.first, let root = Root(rawValue: first) else {
            throw RedactionRuleError(path: path, reason: "it must start with payload, data or context")
        }
        if let empty = parts.firstIndex(where: \.isEmpty) {
            throw RedactionRuleError(path: path, reason: "segment \(empty + 1) is empty")
        }
        self.root = root
        segments = parts.dropFirst().map { $0 == "*" ? .wildcard : .key($0) }
    }

    /// The path as written.
    public var description: String {
        ([root.rawValue]
            + segments.map { segment in
                switch segment {
                case .key(let key): key
                case .wildcard: "*"
                }
            }).joined(separator: ".")
    }

    /// `value` (the whole value under ``root``) with what the rule matches replaced by
    /// ``placeholder``; `found` receives the concrete path and the original of each replaced value.
    /// A value that is the placeholder already is left as it is (and not reported).
    public func apply(to value: JSONValue, found: (String, JSONValue) -> Void = { _, _ in }) -> JSONValue {
        transform(value, path: root.rawValue) { path, original in
            if original == Self.placeholder { return original }
            found(path ?? "", original)
            return Self.placeholder
        }
    }

    /// `value` (the whole value under ``root``) with each value the rule matches replaced by what
    /// `replace` returns for it, or removed when it returns `nil` (the key from its object, the
    /// element from its array). `replace` gets the concrete path (`payload.items.0.price`) when
    /// `path` is the root's name, `nil` when `path` is `nil` (no strings built).
    func transform(
        _ value: JSONValue, path: String? = nil, _ replace: (_ path: String?, _ original: JSONValue) -> JSONValue?
    ) -> JSONValue {
        Self.transform(segments[...], value, path: path, replace) ?? .null
    }

    private static func transform(
        _ segments: ArraySlice<Segment>, _ value: JSONValue, path: String?,
        _ replace: (String?, JSONValue) -> JSONValue?
    ) -> JSONValue? {
        guard let segment = segments.first else { return replace(path, value) }
        let rest = segments.dropFirst()
        func inner(_ key: String) -> String? { path.map { "\($0).\(key)" } }
        switch (segment, value) {
        case (.wildcard, .object(var members)):
            for key in members.keys.sorted() {
                members[key] = transform(rest, members[key] ?? .null, path: inner(key), replace)
            }
            return .object(members)
        case (.wildcard, .array(let elements)):
            var kept: [JSONValue] = []
            kept.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                if let result = transform(rest, element, path: inner(String(index)), replace) { kept.append(result) }
            }
            return .array(kept)
        case (.key(let key), .object(var members)):
            guard let member = members[key] else { return value }
            members[key] = transform(rest, member, path: inner(key), replace)
            return .object(members)
        case (.key(let key), .array(var elements)):
            guard let index = Int(key), elements.indices.contains(index) else { return value }
            if let result = transform(rest, elements[index], path: inner(String(index)), replace) {
                elements[index] = result
            } else {
                elements.remove(at: index)
            }
            return .array(elements)
        default:
            return value
        }
    }
}

/// A redaction path that cannot be used, and why.
public struct RedactionRuleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path as given.
    public var path: String
    /// What is wrong with it.
    public var reason: String

    /// Creates the error.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `redaction path 'x.y': it must start with payload, data or context`.
    public var description: String { "redaction path '\(path)': \(reason)" }
}

import RewindMachine

/// A path into a JSON value, such as `ready.items[2]`.
public struct JSONPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// One step of a path.
    public enum Component: Sendable, Hashable {
        /// An object member.
        case key(String)
        /// An array element.
        case index(Int)
    }

    /// The steps from the root.
    public var components: [Component]

    /// Creates a path (the root by default).
    public init(_ components: [Component] = []) {
        self.components = components
    }

    /// The path one step further.
    public func appending(_ component: Component) -> JSONPath {
        JSONPath(components + [component])
    }

    /// `a.b[2]`; keys that are not plain identifiers are quoted (`["a b"]`); the root is `$`.
    public var description: String {
        if components.isEmpty { return "$" }
        var text = ""
        for component in components {
            switch component {
            case .index(let index):
                text += "[\(index)]"
            case .key(let key):
                if Self.isPlain(key) {
                    text += (text.isEmpty ? "" : ".") + key
                } else {
                    text += "[\(key.debugDescription)]"
                }
            }
        }
        return text
    }

    /// Orders paths by their description.
    public static func < (lhs: JSONPath, rhs: JSONPath) -> Bool {
        lhs.description < rhs.description
    }

    private static func isPlain(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return key.unicodeScalars.allSatisfy { scalar in
            scalar == "_" || scalar == "-" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                || ("0"..."9").contains(scalar)
        }
    }
}

/// One difference between two JSON values.
public struct JSONChange: Sendable, Hashable, CustomStringConvertible {
    /// What happened at the path.
    public enum Kind: Sendable, Hashable {
        /// The path exists only in the newer value.
        case added(JSONValue)
        /// The path exists only in the older value.
        case removed(JSONValue)
        /// The path holds different values (of different types, or different scalars).
        case changed(from: JSONValue, to: JSONValue)
    }

    /// Where.
    public var path: JSONPath
    /// What.
    public var kind: Kind

    /// Creates a change.
    public init(path: JSONPath, kind: Kind) {
        self.path = path
        self.kind = kind
    }

    /// E.g. `+ ready.title: "Inbox"`, `- error: "timeout"`, `~ count: 1 → 2`.
    public var description: String {
        switch kind {
        case .added(let value): return "+ \(path): \(Self.text(value))"
        case .removed(let value): return "- \(path): \(Self.text(value))"
        case .changed(let from, let to): return "~ \(path): \(Self.text(from)) → \(Self.text(to))"
        }
    }

    private static func text(_ value: JSONValue) -> String {
        guard let data = try? value.encoded() else { return "\(value)" }
        return String(decoding: data, as: UTF8.self)
    }
}

extension JSONValue {
    /// The structural differences from `self` to `other`: objects member by member (in key
    /// order), arrays element by element (extra elements added or removed at the end), anything
    /// else compared whole. Equal values give no change.
    public func differences(to other: JSONValue, at path: JSONPath = JSONPath()) -> [JSONChange] {
        var changes: [JSONChange] = []
        Self.collect(from: self, to: other, at: path, into: &changes)
        return changes
    }

    private static func collect(
        from old: JSONValue, to new: JSONValue, at path: JSONPath, into changes: inout [JSONChange]
    ) {
        if old == new { return }
        switch (old, new) {
        case (.object(let before), .object(let after)):
            for key in Set(before.keys).union(after.keys).sorted() {
                let next = path.appending(.key(key))
                switch (before[key], after[key]) {
                case (let old?, let new?): collect(from: old, to: new, at: next, into: &changes)
                case (let old?, nil): changes.append(JSONChange(path: next, kind: .removed(old)))
                case (nil, let new?): changes.append(JSONChange(path: next, kind: .added(new)))
                case (nil, nil): break
                }
            }
        case (.array(let before), .array(let after)):
            for index in 0..<max(before.count, after.count) {
                let next = path.appending(.index(index))
                if index >= after.count {
                    changes.append(JSONChange(path: next, kind: .removed(before[index])))
                } else if index >= before.count {
                    changes.append(JSONChange(path: next, kind: .added(after[index])))
                } else {
                    collect(from: before[index], to: after[index], at: next, into: &changes)
                }
            }
        default:
            changes.append(JSONChange(path: path, kind: .changed(from: old, to: new)))
        }
    }
}

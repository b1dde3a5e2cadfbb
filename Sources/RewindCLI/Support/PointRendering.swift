import Rewind

/// How replay points and diffs are shown in text and JSON.
struct PointReport: Encodable {
    var session: String
    var version: UInt64
    var time: String?
    var event: String?
    var payload: JSONValue
    var source: [String]
    var configuration: [String]
    var activeStates: [String]
    var data: [String: JSONValue]
    var context: JSONValue
    var navigation: [String]
    /// The stack after the step, root first: `{"screen": …, "data": …}` per entry.
    var navigationStack: [NavigationEntry]
    /// The session's machine (`state`; absent in `replay`'s steps).
    var machine: String?
    /// How many versions the session has (`state`; absent in `replay`'s steps).
    var versions: UInt64?

    init(_ point: ReplayPoint, machine: String? = nil, versions: UInt64? = nil) {
        self.machine = machine
        self.versions = versions
        session = point.session.rawValue
        version = point.version
        time = point.timestamp?.description
        event = point.event
        payload = point.payload
        source = point.source
        configuration = point.configuration
        activeStates = point.activeStates
        data = point.stateData
        context = point.context
        navigation = point.navigationOperations.map(\.description)
        navigationStack = point.navigation.entries
    }

    /// The point as aligned lines.
    var text: String {
        var lines = [
            "version     \(version)\(time.map { " \(Glyphs.current.dot) \($0)" } ?? "")",
            "event       \(event ?? "(before the first record)")\(payload.isNull ? "" : " \(payload.compactJSON)")",
            "active      \(activeStates.joined(separator: ", "))",
            "navigation  \(navigationStack.isEmpty ? "(empty)" : navigationStack.stackText)"
                + (navigation.isEmpty ? "" : "   (\(navigation.joined(separator: ", ")))"),
        ]
        for (id, value) in data.sorted(by: { $0.key < $1.key }) {
            lines.append("data        \(id): \(value.compactJSON)")
        }
        if !context.isNull { lines.append("context     \(context.compactJSON)") }
        return lines.joined(separator: "\n")
    }
}

/// One change of a JSON value between two versions: its path, and the value before and after
/// (`before` absent when it was added, `after` when it was removed).
struct ChangeReport: Encodable {
    /// `added`, `removed` or `changed`.
    var change: String
    /// Where, as the text shows it (`ready.title`, `items[2]`).
    var path: String
    var before: JSONValue?
    var after: JSONValue?

    init(_ change: JSONChange) {
        path = change.path.description
        switch change.kind {
        case .added(let value): self.change = "added"; after = value
        case .removed(let value): self.change = "removed"; before = value
        case .changed(let from, let to): self.change = "changed"; before = from; after = to
        }
    }

    /// `+ path: value`, `- path: value`, `~ path: before → after`.
    var text: String {
        switch change {
        case "added": return "+ \(path): \(after?.compactJSON ?? "null")"
        case "removed": return "- \(path): \(before?.compactJSON ?? "null")"
        default:
            return "~ \(path): \(before?.compactJSON ?? "null") \(Glyphs.current.arrow) \(after?.compactJSON ?? "null")"
        }
    }
}

struct DiffReport: Encodable {
    var from: UInt64
    var to: UInt64
    var exited: [String]
    var entered: [String]
    var stateData: [ChangeReport]
    var context: [ChangeReport]
    var payload: [ChangeReport]
    var popped: [NavigationEntry]
    var pushed: [NavigationEntry]
    var navigationBefore: [NavigationEntry]
    var navigationAfter: [NavigationEntry]

    init(_ diff: ReplayDiff) {
        from = diff.fromVersion
        to = diff.toVersion
        exited = diff.exited
        entered = diff.entered
        stateData = diff.stateData.map(ChangeReport.init)
        context = diff.context.map(ChangeReport.init)
        payload = diff.payload.map(ChangeReport.init)
        popped = diff.navigation.popped
        pushed = diff.navigation.pushed
        navigationBefore = diff.navigation.before
        navigationAfter = diff.navigation.after
    }

    var text: String {
        var lines = ["diff \(from) \(Glyphs.current.arrow) \(to)"]
        if !exited.isEmpty { lines.append("  exited    \(exited.joined(separator: ", "))") }
        if !entered.isEmpty { lines.append("  entered   \(entered.joined(separator: ", "))") }
        for change in stateData { lines.append("  data      \(change.text)") }
        for change in context { lines.append("  context   \(change.text)") }
        for change in payload { lines.append("  payload   \(change.text)") }
        if !popped.isEmpty || !pushed.isEmpty {
            lines.append("  stack     \(navigationBefore.stackText) \(Glyphs.current.doubleArrow) \(navigationAfter.stackText)")
        }
        if lines.count == 1 { lines.append("  no change") }
        return lines.joined(separator: "\n")
    }
}

extension NavigationEntry {
    /// The entry in one line: its screen, then its data as compact JSON when it has some
    /// (`detail {"character":"日"}`).
    var text: String {
        data.isNull ? screen : "\(screen) \(data.compactJSON)"
    }
}

extension [NavigationEntry] {
    /// The entries in one line, root first: `all › detail {"character":"日"} › list {"word":"日本"}`.
    var stackText: String {
        map(\.text).joined(separator: " \(Glyphs.current.stackSeparator) ")
    }
}

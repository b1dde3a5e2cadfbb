import Rewind
import RewindWire

/// How replay points and diffs are shown in text (their JSON shapes are the Rewind module's
/// ``ReplayPointReport`` and ``ReplayDiffReport``, which the fleet server answers too).
typealias PointReport = ReplayPointReport
typealias DiffReport = ReplayDiffReport

extension ReplayPointReport {
    /// The point as aligned lines; names and values from the log are shown with their control
    /// characters escaped (``Swift/String/shown``).
    var text: String {
        var lines = [
            "version     \(version)\(time.map { " \(Glyphs.current.dot) \($0)" } ?? "")",
            "event       \(event?.shown ?? "(before the first record)")\(payload.isNull ? "" : " \(payload.compactJSON)")",
            "active      \(activeStates.joined(separator: ", ").shown)",
            "navigation  \(navigationStack.isEmpty ? "(empty)" : navigationStack.stackText)"
                + (navigation.isEmpty ? "" : "   (\(navigation.joined(separator: ", ").shown))"),
        ]
        for (id, value) in data.sorted(by: { $0.key < $1.key }) {
            lines.append("data        \(id.shown): \(value.compactJSON)")
        }
        if !context.isNull { lines.append("context     \(context.compactJSON)") }
        return lines.joined(separator: "\n")
    }
}

extension ReplayDiffReport.Change {
    /// `+ path: value`, `- path: value`, `~ path: before → after`.
    var text: String {
        switch change {
        case "added": return "+ \(path.shown): \(after?.compactJSON ?? "null")"
        case "removed": return "- \(path.shown): \(before?.compactJSON ?? "null")"
        default:
            return
                "~ \(path.shown): \(before?.compactJSON ?? "null") \(Glyphs.current.arrow) \(after?.compactJSON ?? "null")"
        }
    }
}

extension ReplayDiffReport {
    /// The diff as indented lines.
    var text: String {
        var lines = ["diff \(from) \(Glyphs.current.arrow) \(to)"]
        if !exited.isEmpty { lines.append("  exited    \(exited.joined(separator: ", ").shown)") }
        if !entered.isEmpty { lines.append("  entered   \(entered.joined(separator: ", ").shown)") }
        for change in stateData { lines.append("  data      \(change.text)") }
        for change in context { lines.append("  context   \(change.text)") }
        for change in payload { lines.append("  payload   \(change.text)") }
        if !popped.isEmpty || !pushed.isEmpty {
            lines.append(
                "  stack     \(navigationBefore.stackText) \(Glyphs.current.doubleArrow) \(navigationAfter.stackText)")
        }
        if lines.count == 1 { lines.append("  no change") }
        return lines.joined(separator: "\n")
    }
}

extension NavigationEntry {
    /// The entry in one line: its screen, then its data as compact JSON when it has some
    /// (`detail {"character":"日"}`).
    var text: String {
        data.isNull ? screen.shown : "\(screen.shown) \(data.compactJSON)"
    }
}

extension [NavigationEntry] {
    /// The entries in one line, root first: `all › detail {"character":"日"} › list {"word":"日本"}`.
    var stackText: String {
        map(\.text).joined(separator: " \(Glyphs.current.stackSeparator) ")
    }
}

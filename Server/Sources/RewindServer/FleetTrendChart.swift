import Foundation

/// A machine's sessions by day as an inline SVG bar chart: for each day from the first to the
/// last with a session (at most the last ``maximumDays``), a bar of the sessions started that day
/// and beside it one of those that finished that day. Each day is a `<g>` carrying its numbers in
/// `data-` attributes and a `<title>` (the browser's tooltip).
struct FleetTrendChart {
    /// The most days drawn: the latest ones.
    static let maximumDays: Int64 = 92

    var days: [FleetDay]
    var finishing: FleetPage.Finishing

    var html: String {
        var text = "<figure class=\"rw-chart\" style=\"margin:8px 0 0\">"
        guard let first = days.first?.day, let last = days.last?.day else {
            return text + "<figcaption class=\"rw-meta\">No session in this range.</figcaption></figure>"
        }
        let start = max(first, last - Self.maximumDays + 1)
        let byDay = Dictionary(days.map { ($0.day, $0) }, uniquingKeysWith: { first, _ in first })
        let count = Int(last - start + 1)
        let highest = max(1, days.filter { $0.day >= start }.map { max($0.started, $0.finished) }.max() ?? 1)
        let (width, height, top, bottom) = (max(count * 12, 120), 80, 4, 14)
        let slot = Double(width) / Double(count)
        let bar = max(1, slot * 0.4)
        text += "<svg class=\"rw-trend\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" "
        text += "aria-label=\"sessions started and finished by day\">"
        let plot = Double(height - top - bottom)
        for index in 0..<count {
            let day = start + Int64(index)
            let counts = byDay[day] ?? FleetDay(day: day, started: 0, finished: 0)
            let x = Double(index) * slot + (slot - 2 * bar) / 2
            let started = plot * Double(counts.started) / Double(highest)
            let finished = plot * Double(counts.finished) / Double(highest)
            let name = FleetPage.day(day)
            text += "<g class=\"rw-day\" data-day=\"\(name)\" data-started=\"\(counts.started)\" "
            text += "data-finished=\"\(counts.finished)\"><title>\(name): \(counts.started) started, "
            text += "\(counts.finished) finished</title>"
            text += "<rect x=\"\(Self.format(x))\" y=\"\(Self.format(Double(top) + plot - started))\" "
            text += "width=\"\(Self.format(bar))\" height=\"\(Self.format(started))\" class=\"rw-started\"/>"
            text += "<rect x=\"\(Self.format(x + bar))\" y=\"\(Self.format(Double(top) + plot - finished))\" "
            text += "width=\"\(Self.format(bar))\" height=\"\(Self.format(finished))\" class=\"rw-finished\"/></g>"
        }
        text += "<line x1=\"0\" x2=\"\(width)\" y1=\"\(height - bottom)\" y2=\"\(height - bottom)\" "
        text += "class=\"rw-axis\"/>"
        text += "<text x=\"0\" y=\"\(height - 2)\" class=\"rw-label\">\(FleetPage.day(start))</text>"
        text += "<text x=\"\(width)\" y=\"\(height - 2)\" class=\"rw-label\" text-anchor=\"end\">"
        text += "\(FleetPage.day(last))</text></svg>"
        text += "<figcaption class=\"rw-meta\"><span class=\"rw-key\" style=\"background:var(--accent)\"></span>started"
        text += "<span class=\"rw-key\" style=\"background:var(--done)\"></span>finished: "
        if finishing.states.isEmpty {
            text += "no definition received, so none counted"
        } else {
            text +=
                finishing.declaredFinal ? "in a final state (" : "no final state declared; in a state with no way out ("
            text += FleetPage.escaped(finishing.states.joined(separator: ", ")) + ")"
        }
        if first < start { text += "; the last \(Self.maximumDays) days shown" }
        return text + "</figcaption></figure>"
    }

    /// A coordinate with at most one decimal.
    static func format(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}

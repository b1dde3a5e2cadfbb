@_spi(Internals) import RewindMachine

/// Writes a laid-out diagram as one standalone `<svg>` element.
struct SVGWriter {
    let layout: DiagramLayout
    let active: Set<String>
    let taken: Int?
    private var output = ""

    init(layout: DiagramLayout, active: Set<String>, taken: Int?) {
        self.layout = layout
        self.active = active
        self.taken = taken
    }

    private var model: DiagramModel { layout.model }

    /// The SVG text.
    static func svg(_ layout: DiagramLayout, active: Set<String> = [], taken: Int? = nil) -> String {
        var writer = SVGWriter(layout: layout, active: active, taken: taken)
        writer.write()
        return writer.output
    }

    private mutating func write() {
        let (width, height) = layout.size
        let name = XMLText.escape(model.name)
        output +=
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"rw-diagram\" viewBox=\"0 0 \(Self.number(width)) \(Self.number(height))\""
        output +=
            " width=\"\(Self.number(width))\" height=\"\(Self.number(height))\" role=\"img\" aria-label=\"\(name) statechart\">\n"
        output += "<title>\(name)</title>\n<style>\n\(DiagramStyle.css)\n</style>\n"
        output +=
            "<text class=\"rw-title\" x=\"\(Self.number(DiagramLayout.margin))\" y=\"\(Self.number(DiagramLayout.margin + 14))\">\(name)</text>\n"
        output += "<g class=\"rw-states\">\n"
        for child in model.nodes[0].children { writeState(child) }
        output += "</g>\n<g class=\"rw-initials\">\n"
        for marker in layout.initialMarkers { writeInitial(marker) }
        output += "</g>\n<g class=\"rw-transitions\">\n"
        writeTransitions()
        output += "</g>\n</svg>\n"
    }

    private mutating func writeState(_ node: Int) {
        let state = model.nodes[node]
        let box = layout.boxes[node]
        var classes = ["rw-state", state.kind.cssClass]
        if let parent = state.parent, model.nodes[parent].kind == .parallel { classes.append("rw-region") }
        if active.contains(state.id) { classes.append("rw-active") }
        let id = XMLText.escape(state.id)
        output += "<g class=\"\(classes.joined(separator: " "))\" data-state=\"\(id)\"><title>\(id)</title>\n"
        switch state.kind {
        case .atomic:
            rect(box, radius: 6, class: "rw-box")
            text(state.id, x: box.midX, y: box.midY + 4.5, class: "rw-name", centred: true)
        case .final:
            rect(box, radius: 8, class: "rw-box")
            rect(
                DiagramRect(x: box.x + 3, y: box.y + 3, width: box.width - 6, height: box.height - 6), radius: 5,
                class: "rw-inner")
            text(state.id, x: box.midX, y: box.midY + 4.5, class: "rw-name", centred: true)
        case .history(let deep):
            rect(box, radius: min(box.width, box.height) / 2, class: "rw-box")
            text(deep ? "H*" : "H", x: box.midX, y: box.midY + 4, class: "rw-name", centred: true)
        case .compound, .parallel:
            rect(box, radius: 8, class: "rw-box")
            text(state.id, x: box.x + 10, y: box.y + 17, class: "rw-name rw-header", centred: false)
            if state.kind == .parallel {
                for (left, right) in zip(state.children, state.children.dropFirst()) {
                    let x = (layout.boxes[left].maxX + layout.boxes[right].x) / 2
                    output +=
                        "<path class=\"rw-separator\" d=\"M\(Self.number(x)) \(Self.number(box.y + DiagramLayout.header))"
                    output += "V\(Self.number(box.maxY - 2))\"/>\n"
                }
            }
            for child in state.children { writeState(child) }
        case .root:
            break
        }
        output += "</g>\n"
    }

    private mutating func writeInitial(_ marker: (centre: DiagramPoint, arrows: [[DiagramPoint]])) {
        output +=
            "<g class=\"rw-initial\"><circle class=\"rw-dot\" cx=\"\(Self.number(marker.centre.x))\" cy=\"\(Self.number(marker.centre.y))\" r=\"5\"/>\n"
        for arrow in marker.arrows where arrow.count >= 2 {
            var points = arrow
            points[0].y += 5
            curve(points)
        }
        output += "</g>\n"
    }

    private mutating func writeTransitions() {
        var routes = Array(repeating: [(DiagramModel.Edge, DiagramLayout.Route)](), count: model.transitions.count)
        for (number, edge) in model.edges.enumerated() {
            if let route = layout.routes[number] { routes[edge.transition].append((edge, route)) }
        }
        for transition in model.transitions {
            var classes = ["rw-transition", "rw-\(transition.kind.rawValue.lowercased())"]
            if transition.kind == .directMove || transition.kind == .historyDefault { classes.append("rw-dashed") }
            if transition.index == taken { classes.append("rw-taken") }
            let label = XMLText.escape(transition.label)
            output += "<g class=\"\(classes.joined(separator: " "))\" data-transition=\"\(transition.index)\""
            output += " data-event=\"\(XMLText.escape(transition.event ?? ""))\">"
            let targets = (transition.targets.isEmpty ? [transition.source] : transition.targets).map(XMLText.escape)
            output +=
                "<title>\(XMLText.escape(transition.source)) → \(targets.joined(separator: ", ")): \(label)</title>\n"
            for (edge, route) in routes[transition.index] {
                switch route {
                case .curve(let points, let position):
                    curve(points)
                    if let position {
                        text(transition.label, x: position.x + 5, y: position.y + 4, class: "rw-label", centred: false)
                    }
                case .straight(let start, let end, let position):
                    output += "<path class=\"rw-edge\" d=\"M\(Self.pair(start))L\(Self.pair(end))\"/>\n"
                    arrowhead(at: end, from: start)
                    if let position {
                        text(transition.label, x: position.x, y: position.y, class: "rw-label", centred: false)
                    }
                case .loop(let start, let end, let reach, let position):
                    let first = DiagramPoint(x: start.x + reach, y: start.y - 10)
                    let second = DiagramPoint(x: end.x + reach, y: end.y + 10)
                    output +=
                        "<path class=\"rw-edge\" d=\"M\(Self.pair(start))C\(Self.pair(first)) \(Self.pair(second)) \(Self.pair(end))\"/>\n"
                    arrowhead(at: end, from: second)
                    if edge.labelled {
                        text(transition.label, x: position.x, y: position.y + 4, class: "rw-label", centred: false)
                    }
                }
            }
            output += "</g>\n"
        }
    }

    // MARK: - Elements

    /// A path through `points` with vertical tangents at each (a layered drawing's lines), and
    /// its arrowhead at the last point.
    private mutating func curve(_ points: [DiagramPoint]) {
        guard let first = points.first, points.count >= 2 else { return }
        var data = "M\(Self.pair(first))"
        var previous = first
        var lastControl = first
        for point in points.dropFirst() {
            if abs(point.y - previous.y) < 0.5 {
                data += "L\(Self.pair(point))"
                lastControl = previous
            } else {
                let middle = (previous.y + point.y) / 2
                let control = DiagramPoint(x: point.x, y: middle)
                data +=
                    "C\(Self.pair(DiagramPoint(x: previous.x, y: middle))) \(Self.pair(control)) \(Self.pair(point))"
                lastControl = control
            }
            previous = point
        }
        output += "<path class=\"rw-edge\" d=\"\(data)\"/>\n"
        if let last = points.last { arrowhead(at: last, from: lastControl) }
    }

    private mutating func arrowhead(at tip: DiagramPoint, from tail: DiagramPoint) {
        var dx = tip.x - tail.x
        var dy = tip.y - tail.y
        let length = (dx * dx + dy * dy).squareRoot()
        guard length > 0.01 else { return }
        dx /= length
        dy /= length
        let base = DiagramPoint(x: tip.x - dx * 8, y: tip.y - dy * 8)
        let left = DiagramPoint(x: base.x - dy * 4, y: base.y + dx * 4)
        let right = DiagramPoint(x: base.x + dy * 4, y: base.y - dx * 4)
        output += "<path class=\"rw-arrowhead\" d=\"M\(Self.pair(tip))L\(Self.pair(left))L\(Self.pair(right))Z\"/>\n"
    }

    private mutating func rect(_ box: DiagramRect, radius: Double, class name: String) {
        output += "<rect class=\"\(name)\" x=\"\(Self.number(box.x))\" y=\"\(Self.number(box.y))\""
        output +=
            " width=\"\(Self.number(box.width))\" height=\"\(Self.number(box.height))\" rx=\"\(Self.number(radius))\"/>\n"
    }

    private mutating func text(_ content: String, x: Double, y: Double, class name: String, centred: Bool) {
        output +=
            "<text class=\"\(name)\" x=\"\(Self.number(x))\" y=\"\(Self.number(y))\"\(centred ? " text-anchor=\"middle\"" : "")>"
        output += XMLText.escape(content) + "</text>\n"
    }

    // MARK: - Text

    /// `value` with one decimal at most, the same on every platform (no locale, no exponent).
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let tenths = Int((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let magnitude = tenths.magnitude
        let fraction = magnitude % 10
        return sign + String(magnitude / 10) + (fraction == 0 ? "" : "." + String(fraction))
    }

    private static func pair(_ point: DiagramPoint) -> String {
        number(point.x) + " " + number(point.y)
    }
}

/// Where everything of a ``DiagramModel`` goes: every state's box and every line's points.
///
/// Each compound state (and the machine itself) lays out its children with a ``LayeredLayout`` of
/// its own; a parallel state puts its regions side by side. A line is drawn in the layout of the
/// lowest state that holds both its ends. When an end lies deeper (a state inside a child), the
/// child's own layout gets a *port* on the border the line crosses (the bottom for the end above,
/// the top for the end below) and a line from the child holding that end to the port, and so on
/// down: the line is routed between boxes at every level it passes. Which border is known before
/// any size is, because ranks need no sizes: containers are ranked top-down, then sized
/// bottom-up, then placed top-down.
struct DiagramLayout: Sendable {
    /// A point of a line, some of whose x positions are decided last.
    enum Anchor: Sendable {
        case point(DiagramPoint)
        /// On the top or bottom border of a box, at the x of the line's neighbouring point; the line
        /// runs straight from there to `band` (the top or bottom of the box's rank).
        case border(DiagramRect, top: Bool, band: Double)
    }

    /// How one ``DiagramModel/Edge`` is drawn.
    enum Route: Sendable {
        /// Through these points, in the transition's direction (vertical curves between them).
        case curve([DiagramPoint], label: DiagramPoint?)
        /// A straight line (between the regions of a parallel state).
        case straight(DiagramPoint, DiagramPoint, label: DiagramPoint?)
        /// A loop on the right side of a box, from `start` out and back to `end`.
        case loop(start: DiagramPoint, end: DiagramPoint, reach: Double, label: DiagramPoint)
    }

    static let stateFont = 13.0
    static let labelFont = 11.0
    static let padding = 12.0
    static let header = 26.0
    static let margin = 12.0
    static let atomicHeight = 34.0
    static let loopReach = 18.0
    static let regionGap = 8.0

    let model: DiagramModel
    /// Each node's box (the root's is the whole drawing, margins included).
    private(set) var boxes: [DiagramRect]
    /// Each edge's route, by edge index (nil when it could not be placed).
    private(set) var routes: [Route?]
    /// Each initial marker's centre and its arrows' points.
    private(set) var initialMarkers: [(centre: DiagramPoint, arrows: [[DiagramPoint]])] = []

    private var graphs: [Int: LayeredLayout] = [:]
    /// Each layered node's vertices: child node → vertex.
    private var childVertex: [Int: [Int: Int]] = [:]
    private var initialVertex: [Int: Int] = [:]
    /// The edge of a container's graph carrying a model edge (its own, or a port's).
    private var graphEdge: [Int: [Int: Int]] = [:]
    /// The model edges whose lowest common ancestor is a node, and which ends are ancestors.
    private var lowest: [Int] = []
    /// Each layered node's content origin (absolute, after placement).
    private var contentOrigin: [Int: DiagramPoint] = [:]
    /// Each node's box size and the width its loops add on the right.
    private var sizes: [(width: Double, height: Double)]
    private var loopSpace: [Double]
    private var loops: [[Int]]

    init(_ model: DiagramModel) {
        self.model = model
        let count = model.nodes.count
        boxes = Array(repeating: DiagramRect(x: 0, y: 0, width: 0, height: 0), count: count)
        routes = Array(repeating: nil, count: model.edges.count)
        sizes = Array(repeating: (0, 0), count: count)
        loopSpace = Array(repeating: 0, count: count)
        loops = Array(repeating: [], count: count)
        lowest = model.edges.map { model.lowestCommonAncestor($0.source, $0.target) }
        for (number, edge) in model.edges.enumerated() where edge.isLoop { loops[edge.source].append(number) }
        let order = preOrder()
        for node in order where model.nodes[node].kind.isLayered { rank(node) }
        for node in order.reversed() { size(node) }
        place(0, at: DiagramPoint(x: 0, y: 0))
        for node in order where model.nodes[node].kind.isLayered { routeInitial(node) }
        for number in model.edges.indices { routes[number] = route(number) }
    }

    /// The drawing's size.
    var size: (width: Double, height: Double) { (boxes[0].width, boxes[0].height) }

    private func preOrder() -> [Int] {
        var order: [Int] = []
        var stack = [0]
        while let node = stack.popLast() {
            order.append(node)
            stack.append(contentsOf: model.nodes[node].children.reversed())
        }
        return order
    }

    // MARK: - Ranking (top-down)

    /// Port requests a container's ancestors made: (model edge, top?, the child holding the end).
    private var portRequests: [Int: [(edge: Int, top: Bool, child: Int)]] = [:]

    private func labelSize(_ edge: DiagramModel.Edge) -> (width: Double, height: Double)? {
        let text = model.transitions[edge.transition].label
        guard edge.labelled, !text.isEmpty else { return nil }
        return (GlyphMetrics.width(of: text, fontSize: Self.labelFont) + 12, 15)
    }

    private mutating func rank(_ container: Int) {
        var graph = LayeredLayout()
        var vertexOf: [Int: Int] = [:]
        var edgeOf: [Int: Int] = [:]
        let node = model.nodes[container]
        var initialChildren: [Int] = []
        for target in node.initialTargets where target != container && model.isWithin(target, container) {
            let child = model.child(of: container, containing: target)
            if !initialChildren.contains(child) { initialChildren.append(child) }
        }
        if !initialChildren.isEmpty { initialVertex[container] = graph.addVertex(.initial, width: 10, height: 10) }
        for child in node.children { vertexOf[child] = graph.addVertex(.box, width: 0, height: 0) }
        for request in portRequests[container] ?? [] {
            let port = graph.addVertex(.port(top: request.top), width: 4, height: 4)
            guard let child = vertexOf[request.child] else { continue }
            edgeOf[request.edge] =
                request.top
                ? graph.addEdge(from: port, to: child, minLength: 1, label: nil)
                : graph.addEdge(from: child, to: port, minLength: 1, label: nil)
        }
        var own: [Int] = []
        for (number, edge) in model.edges.enumerated() where !edge.isLoop && lowest[number] == container {
            own.append(number)
            let label = labelSize(edge)
            let minLength = label == nil ? 1 : 2
            func end(_ state: Int) -> Int {
                if state == container { return graph.addVertex(.port(top: true), width: 4, height: 4) }
                return vertexOf[model.child(of: container, containing: state)] ?? 0
            }
            let from = end(edge.source)
            edgeOf[number] = graph.addEdge(from: from, to: end(edge.target), minLength: minLength, label: label)
        }
        if let marker = initialVertex[container] {
            for child in initialChildren {
                if let vertex = vertexOf[child] { graph.addEdge(from: marker, to: vertex, minLength: 1, label: nil) }
            }
        }
        graph.rank()
        // Ports inside the children for the ends that lie deeper.
        for number in own {
            let edge = model.edges[number]
            guard let index = edgeOf[number] else { continue }
            let reversed = graph.edges[index].reversed
            requestPorts(edge: number, end: reversed ? edge.target : edge.source, below: container, top: false)
            requestPorts(edge: number, end: reversed ? edge.source : edge.target, below: container, top: true)
        }
        graphs[container] = graph
        childVertex[container] = vertexOf
        graphEdge[container] = edgeOf
    }

    /// Asks every layered state strictly between `container` and `end` for a port on its top or
    /// bottom border, so the line reaches `end` between boxes (parallel states let it through).
    private mutating func requestPorts(edge: Int, end: Int, below container: Int, top: Bool) {
        guard end != container else { return }
        for holder in model.ancestry(of: end).dropFirst() {
            if holder == container { break }
            guard model.nodes[holder].kind.isLayered else { continue }
            portRequests[holder, default: []].append((edge, top, model.child(of: holder, containing: end)))
        }
    }

    // MARK: - Sizes (bottom-up)

    private mutating func size(_ node: Int) {
        let name = model.nodes[node].id
        let nameWidth = GlyphMetrics.width(of: name, fontSize: Self.stateFont)
        let loopLabels = loops[node].map { number -> Double in
            guard let label = labelSize(model.edges[number]) else { return 0 }
            return label.width
        }
        if !loopLabels.isEmpty { loopSpace[node] = Self.loopReach + 4 + (loopLabels.max() ?? 0) }
        let minimumHeight = Double(loops[node].count) * 18 + 10
        switch model.nodes[node].kind {
        case .atomic:
            sizes[node] = (max(nameWidth + 24, 56), max(Self.atomicHeight, minimumHeight))
        case .final:
            sizes[node] = (max(nameWidth + 30, 60), max(Self.atomicHeight + 4, minimumHeight))
        case .history:
            sizes[node] = (26, max(26, minimumHeight))
        case .root, .compound:
            guard var graph = graphs[node] else { return }
            for (child, vertex) in childVertex[node] ?? [:] {
                graph.resize(vertex, width: sizes[child].width + loopSpace[child], height: sizes[child].height)
            }
            graph.layOut()
            graphs[node] = graph
            let (inset, top, bottom) = insets(of: node)
            let width = max(graph.size.width, nameWidth + 8) + 2 * inset
            sizes[node] = (width, max(top + graph.size.height + bottom, minimumHeight))
        case .parallel:
            let regions = model.nodes[node].children
            let width =
                regions.map { sizes[$0].width + loopSpace[$0] }.reduce(0, +)
                + Double(max(regions.count - 1, 0)) * Self.regionGap
            let tallest = regions.map { sizes[$0].height }.max() ?? 0
            for region in regions { sizes[region].height = tallest }
            sizes[node] = (max(width, nameWidth + 8) + 4, max(Self.header + tallest + 2, minimumHeight))
        }
    }

    /// The space between a layered node's border and its children: sides, top (its name), bottom.
    private func insets(of node: Int) -> (side: Double, top: Double, bottom: Double) {
        node == 0 ? (Self.margin, Self.margin + Self.header, Self.margin) : (Self.padding, Self.header, Self.padding)
    }

    // MARK: - Placement (top-down)

    private mutating func place(_ node: Int, at origin: DiagramPoint) {
        let box = DiagramRect(x: origin.x, y: origin.y, width: sizes[node].width, height: sizes[node].height)
        boxes[node] = box
        switch model.nodes[node].kind {
        case .root, .compound:
            guard let graph = graphs[node] else { return }
            let (inset, top, _) = insets(of: node)
            let content = DiagramPoint(
                x: box.x + inset + (box.width - 2 * inset - graph.size.width) / 2, y: box.y + top)
            contentOrigin[node] = content
            for (child, vertex) in childVertex[node] ?? [:] {
                let centre = graph.vertices[vertex]
                let slot = sizes[child].width + loopSpace[child]
                place(
                    child,
                    at: DiagramPoint(
                        x: content.x + centre.x - slot / 2, y: content.y + centre.y - sizes[child].height / 2))
            }
        case .parallel:
            let regions = model.nodes[node].children
            let used =
                regions.map { sizes[$0].width + loopSpace[$0] }.reduce(0, +)
                + Double(max(regions.count - 1, 0)) * Self.regionGap
            var x = box.x + (box.width - used) / 2
            for region in regions {
                place(region, at: DiagramPoint(x: x, y: box.y + Self.header))
                x += sizes[region].width + loopSpace[region] + Self.regionGap
            }
        case .atomic, .final, .history:
            break
        }
    }

    // MARK: - Lines

    private func absolute(_ container: Int, _ vertex: Int) -> DiagramPoint {
        let origin = contentOrigin[container] ?? DiagramPoint(x: 0, y: 0)
        guard let graph = graphs[container] else { return origin }
        let placed = graph.vertices[vertex]
        if placed.role == .label {
            return DiagramPoint(x: origin.x + placed.x - placed.width / 2 + 3, y: origin.y + placed.y)
        }
        return DiagramPoint(x: origin.x + placed.x, y: origin.y + placed.y)
    }

    /// The top and bottom of a vertex's rank (absolute).
    private func band(_ container: Int, _ vertex: Int) -> (top: Double, bottom: Double) {
        let origin = contentOrigin[container] ?? DiagramPoint(x: 0, y: 0)
        guard let placed = graphs[container]?.vertices[vertex] else { return (origin.y, origin.y) }
        return (origin.y + placed.bandTop, origin.y + placed.bandBottom)
    }

    /// The top and bottom of the rank of `node`'s box in its parent's layout (its own box in a
    /// parallel state's).
    private func band(of node: Int) -> (top: Double, bottom: Double) {
        guard let parent = model.nodes[node].parent, let vertex = childVertex[parent]?[node] else {
            return (boxes[node].y, boxes[node].maxY)
        }
        return band(parent, vertex)
    }

    /// A border anchor of `node`'s box.
    private func border(_ node: Int, top: Bool) -> Anchor {
        let extent = band(of: node)
        return .border(boxes[node], top: top, band: top ? extent.top : extent.bottom)
    }

    /// The anchors of a chain's inner vertices (its ends excluded): each run straight through its
    /// rank.
    private func inner(_ container: Int, _ chain: [Int]) -> [Anchor] {
        chain.dropFirst().dropLast().flatMap { vertex -> [Anchor] in
            let point = absolute(container, vertex)
            let extent = band(container, vertex)
            return [
                .point(DiagramPoint(x: point.x, y: extent.top)), .point(DiagramPoint(x: point.x, y: extent.bottom)),
            ]
        }
    }

    private mutating func routeInitial(_ container: Int) {
        guard let marker = initialVertex[container], let graph = graphs[container] else { return }
        var arrows: [[DiagramPoint]] = []
        for edge in graph.edges where edge.from == marker {
            guard let last = edge.chain.last,
                let child = childVertex[container]?.first(where: { $0.value == last })?.key
            else { continue }
            let centre = absolute(container, marker)
            var anchors: [Anchor] = [
                .point(centre), .point(DiagramPoint(x: centre.x, y: band(container, marker).bottom)),
            ]
            anchors += inner(container, edge.chain)
            anchors.append(border(child, top: true))
            arrows.append(Self.resolve(anchors))
        }
        initialMarkers.append((absolute(container, marker), arrows))
    }

    private func route(_ number: Int) -> Route? {
        let edge = model.edges[number]
        let container = lowest[number]
        if edge.isLoop {
            guard let position = loops[edge.source].firstIndex(of: number) else { return nil }
            let box = boxes[edge.source]
            let step = box.height / Double(loops[edge.source].count + 1)
            let y = box.y + step * Double(position + 1)
            return .loop(
                start: DiagramPoint(x: box.maxX, y: y - 5), end: DiagramPoint(x: box.maxX, y: y + 5),
                reach: Self.loopReach,
                label: DiagramPoint(x: box.maxX + Self.loopReach + 4, y: y))
        }
        guard model.nodes[container].kind.isLayered else {
            return straight(number)
        }
        guard let graph = graphs[container], let index = graphEdge[container]?[number] else { return nil }
        let laid = graph.edges[index]
        let (upper, lower) = laid.reversed ? (edge.target, edge.source) : (edge.source, edge.target)
        var anchors: [Anchor] = []
        if upper == container {
            let port = absolute(container, laid.chain[0])
            anchors += [
                .point(DiagramPoint(x: port.x, y: boxes[container].y)),
                .point(DiagramPoint(x: port.x, y: band(container, laid.chain[0]).bottom)),
            ]
        } else {
            anchors += exit(number, from: upper, through: model.child(of: container, containing: upper))
        }
        anchors += inner(container, laid.chain)
        anchors += entry(number, to: lower, through: model.child(of: container, containing: lower))
        var points = Self.resolve(anchors)
        if laid.reversed { points.reverse() }
        var label: DiagramPoint?
        if edge.labelled, let vertex = laid.chain.first(where: { graph.vertices[$0].role == .label }) {
            label = absolute(container, vertex)
        }
        return .curve(points, label: label)
    }

    /// From `end` down to the bottom border of `holder` (a child of the line's container).
    private func exit(_ number: Int, from end: Int, through holder: Int) -> [Anchor] {
        if end == holder { return [border(holder, top: false)] }
        let next = model.child(of: holder, containing: end)
        let below = exit(number, from: end, through: next)
        guard model.nodes[holder].kind.isLayered else {
            return below + [border(holder, top: false)]
        }
        guard let graph = graphs[holder], let index = graphEdge[holder]?[number] else { return below }
        let chain = graph.edges[index].chain
        let port = chain[chain.count - 1]
        let x = absolute(holder, port).x
        return below + inner(holder, chain) + [
            .point(DiagramPoint(x: x, y: band(holder, port).top)), .point(DiagramPoint(x: x, y: boxes[holder].maxY)),
            .point(DiagramPoint(x: x, y: band(of: holder).bottom)),
        ]
    }

    /// From the top border of `holder` (a child of the line's container) down to `end`.
    private func entry(_ number: Int, to end: Int, through holder: Int) -> [Anchor] {
        if end == holder { return [border(holder, top: true)] }
        let next = model.child(of: holder, containing: end)
        let above = entry(number, to: end, through: next)
        guard model.nodes[holder].kind.isLayered else {
            return [border(holder, top: true)] + above
        }
        guard let graph = graphs[holder], let index = graphEdge[holder]?[number] else { return above }
        let chain = graph.edges[index].chain
        let x = absolute(holder, chain[0]).x
        return [
            .point(DiagramPoint(x: x, y: band(of: holder).top)), .point(DiagramPoint(x: x, y: boxes[holder].y)),
            .point(DiagramPoint(x: x, y: band(holder, chain[0]).bottom)),
        ] + inner(holder, chain) + above
    }

    /// The points of `anchors`, a border anchor taking the x of its nearest fixed neighbour
    /// (kept inside its box's border, away from the corners) and running straight to its band.
    static func resolve(_ anchors: [Anchor]) -> [DiagramPoint] {
        var xs: [Double?] = anchors.map {
            if case .point(let point) = $0 { return point.x } else { return nil }
        }
        for _ in 0..<3 {
            for index in anchors.indices where xs[index] == nil {
                guard case .border(let box, let top, _) = anchors[index] else { continue }
                // The side the line comes from inside: below a top border, above a bottom one.
                let neighbours = (top ? [index + 1, index - 1] : [index - 1, index + 1]).filter {
                    anchors.indices.contains($0)
                }
                if let reference = neighbours.compactMap({ xs[$0] }).first {
                    xs[index] = box.clampedX(reference, inset: 8)
                }
            }
        }
        var points: [DiagramPoint] = []
        for (index, anchor) in anchors.enumerated() {
            switch anchor {
            case .point(let point):
                points.append(point)
            case .border(let box, let top, let band):
                let x = xs[index] ?? box.midX
                let edge = DiagramPoint(x: x, y: top ? box.y : box.maxY)
                let through = DiagramPoint(x: x, y: band)
                points += top ? [through, edge] : [edge, through]
            }
        }
        // Repeated points (a band that is the border itself) add nothing.
        var result: [DiagramPoint] = []
        for point in points where result.last.map({ abs($0.x - point.x) > 0.05 || abs($0.y - point.y) > 0.05 }) ?? true
        {
            result.append(point)
        }
        return result
    }

    /// A straight line between two states of a parallel state (or from it to one inside).
    private func straight(_ number: Int) -> Route {
        let edge = model.edges[number]
        let source = boxes[edge.source]
        let target = boxes[edge.target]
        let container = lowest[number]
        let start: DiagramPoint
        if edge.source == container {
            start = DiagramPoint(x: target.midX, y: source.y)
        } else {
            start = Self.border(of: source, towards: DiagramPoint(x: target.midX, y: target.midY))
        }
        let end: DiagramPoint
        if edge.target == container {
            end = DiagramPoint(x: source.midX, y: target.y)
        } else {
            end = Self.border(of: target, towards: DiagramPoint(x: source.midX, y: source.midY))
        }
        let label = edge.labelled ? DiagramPoint(x: (start.x + end.x) / 2 + 4, y: (start.y + end.y) / 2) : nil
        return .straight(start, end, label: label)
    }

    /// Where the line from `box`'s centre towards `point` leaves the box.
    static func border(of box: DiagramRect, towards point: DiagramPoint) -> DiagramPoint {
        let dx = point.x - box.midX
        let dy = point.y - box.midY
        guard dx != 0 || dy != 0 else { return DiagramPoint(x: box.midX, y: box.y) }
        let scale = min(
            dx == 0 ? .infinity : (box.width / 2) / abs(dx), dy == 0 ? .infinity : (box.height / 2) / abs(dy))
        return DiagramPoint(x: box.midX + dx * scale, y: box.midY + dy * scale)
    }
}

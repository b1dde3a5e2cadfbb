/// A layered (Sugiyama-style) drawing of one graph: the children of one compound state with the
/// lines between them, top to bottom.
///
/// 1. Cycles are broken by reversing the edges a depth-first search finds going back.
/// 2. Longest-path layering puts each vertex at least `minLength` ranks below its predecessors
///    (a labelled edge spans two ranks: its label sits in the middle one); bottom ports go last.
/// 3. An edge spanning several ranks becomes a chain of dummy vertices (one of them the label), so
///    every line passes between the boxes of the ranks it crosses rather than through them.
/// 4. Barycentre sweeps order each rank to reduce crossings (the best order seen is kept).
/// 5. Each rank's x positions are the closest to the mean of their neighbours' that keep the
///    boxes apart (isotonic regression), alternating down and up.
///
/// Everything is deterministic: ties are broken by insertion order.
struct LayeredLayout: Sendable {
    /// What a vertex stands for.
    enum Role: Sendable, Hashable {
        /// A box (a child state), sized by the caller.
        case box
        /// The initial marker (a dot).
        case initial
        /// Where a line crosses the container's top or bottom border.
        case port(top: Bool)
        /// A bend of a long line.
        case dummy
        /// The label of a line.
        case label
    }

    struct Vertex: Sendable {
        var role: Role
        var width: Double
        var height: Double
        var rank = 0
        var x = 0.0
        var y = 0.0
        /// The top and bottom of the vertex's rank: a line through a dummy, label or port runs
        /// straight down its rank and bends only between ranks, where no box is.
        var bandTop = 0.0
        var bandBottom = 0.0
    }

    /// An edge as given; after ``layOut()`` its `chain` lists the vertices it passes, from its
    /// upper end to its lower end.
    struct Edge: Sendable {
        var from: Int
        var to: Int
        var minLength: Int
        /// The label's size, when the edge has one.
        var label: (width: Double, height: Double)?
        /// Whether the edge runs against the layout's downward direction (found on a cycle, or
        /// given that way: an edge into a top port).
        var reversed = false
        var chain: [Int] = []
    }

    private(set) var vertices: [Vertex] = []
    private(set) var edges: [Edge] = []
    /// The vertices of each rank, left to right (after ``layOut()``).
    private(set) var ranks: [[Int]] = []
    /// The width and height of the drawing (after ``layOut()``).
    private(set) var size = (width: 0.0, height: 0.0)

    static let rankGap = 14.0
    static let boxGap = 22.0
    static let smallGap = 10.0

    mutating func addVertex(_ role: Role, width: Double, height: Double) -> Int {
        vertices.append(Vertex(role: role, width: width, height: height))
        return vertices.count - 1
    }

    /// Sets a vertex's size (a child's, once it is known).
    mutating func resize(_ vertex: Int, width: Double, height: Double) {
        vertices[vertex].width = width
        vertices[vertex].height = height
    }

    /// Adds an edge; one into a top port is turned round (ports on top only start edges).
    @discardableResult
    mutating func addEdge(from: Int, to: Int, minLength: Int, label: (width: Double, height: Double)?) -> Int {
        var edge = Edge(from: from, to: to, minLength: minLength, label: label)
        if case .port(top: true) = vertices[to].role {
            edge = Edge(from: to, to: from, minLength: minLength, label: label, reversed: true)
        }
        edges.append(edge)
        return edges.count - 1
    }

    /// Breaks cycles and assigns ranks: the part of the layout that needs no sizes, so a container
    /// can learn which way its edges run before its children are laid out.
    mutating func rank() {
        breakCycles()
        assignRanks()
    }

    /// Chains, orders and places the vertices (sizes must be final).
    mutating func layOut() {
        buildChains()
        let links = chainLinks()
        order(links)
        place(links)
    }

    // MARK: - Cycles and ranks

    private mutating func breakCycles() {
        var outgoing = Array(repeating: [Int](), count: vertices.count)
        for (number, edge) in edges.enumerated() { outgoing[edge.from].append(number) }
        var state = Array(repeating: 0, count: vertices.count)  // 0 new, 1 on the stack, 2 done
        var reverse: [Int] = []
        for start in vertices.indices where state[start] == 0 {
            // An explicit stack: (vertex, next outgoing edge to look at).
            var stack = [(start, 0)]
            state[start] = 1
            while let (vertex, next) = stack.last {
                if next < outgoing[vertex].count {
                    stack[stack.count - 1].1 += 1
                    let number = outgoing[vertex][next]
                    let target = edges[number].to
                    if state[target] == 1 {
                        reverse.append(number)
                    } else if state[target] == 0 {
                        state[target] = 1
                        stack.append((target, 0))
                    }
                } else {
                    state[vertex] = 2
                    stack.removeLast()
                }
            }
        }
        for number in reverse {
            let edge = edges[number]
            edges[number].from = edge.to
            edges[number].to = edge.from
            edges[number].reversed.toggle()
        }
    }

    private mutating func assignRanks() {
        var incoming = Array(repeating: [Int](), count: vertices.count)
        var outgoing = Array(repeating: [Int](), count: vertices.count)
        for (number, edge) in edges.enumerated() {
            incoming[edge.to].append(number)
            outgoing[edge.from].append(number)
        }
        // Kahn's order, lowest index first.
        var remaining = incoming.map(\.count)
        var ready = vertices.indices.filter { remaining[$0] == 0 }
        var topological: [Int] = []
        while !ready.isEmpty {
            let vertex = ready.removeFirst()
            topological.append(vertex)
            for number in outgoing[vertex] {
                let target = edges[number].to
                remaining[target] -= 1
                if remaining[target] == 0 { ready.append(target) }
            }
        }
        for vertex in topological {
            vertices[vertex].rank =
                incoming[vertex].map { vertices[edges[$0].from].rank + edges[$0].minLength }.max() ?? 0
        }
        // Sources that lead somewhere (the initial marker too) move down next to their successors.
        for vertex in topological.reversed()
        where incoming[vertex].isEmpty && (vertices[vertex].role == .box || vertices[vertex].role == .initial) {
            if let lowest = outgoing[vertex].map({ vertices[edges[$0].to].rank - edges[$0].minLength }).min() {
                vertices[vertex].rank = max(vertices[vertex].rank, lowest)
            }
        }
        let bottom = (vertices.filter { $0.role != .port(top: false) }.map(\.rank).max() ?? 0) + 1
        for vertex in vertices.indices where vertices[vertex].role == .port(top: false) {
            vertices[vertex].rank = bottom
        }
    }

    // MARK: - Chains

    /// Each vertex's neighbours along the edges' chains: one rank up (`above`) and one rank down
    /// (`below`), what ordering and placing both look at.
    private func chainLinks() -> (above: [[Int]], below: [[Int]]) {
        var above = Array(repeating: [Int](), count: vertices.count)
        var below = Array(repeating: [Int](), count: vertices.count)
        for edge in edges {
            for (upper, lower) in zip(edge.chain, edge.chain.dropFirst()) {
                below[upper].append(lower)
                above[lower].append(upper)
            }
        }
        return (above, below)
    }

    private mutating func buildChains() {
        for number in edges.indices {
            let edge = edges[number]
            let upper = vertices[edge.from].rank
            let lower = vertices[edge.to].rank
            var chain = [edge.from]
            if lower - upper > 1 {
                let labelRank = edge.label == nil ? nil : upper + (lower - upper) / 2
                for rank in (upper + 1)..<lower {
                    let vertex: Int
                    if rank == labelRank, let label = edge.label {
                        vertex = addVertex(.label, width: label.width, height: label.height)
                    } else {
                        vertex = addVertex(.dummy, width: 4, height: 4)
                    }
                    vertices[vertex].rank = rank
                    chain.append(vertex)
                }
            }
            chain.append(edge.to)
            edges[number].chain = chain
        }
    }

    // MARK: - Order

    private mutating func order(_ links: (above: [[Int]], below: [[Int]])) {
        let rankCount = (vertices.map(\.rank).max() ?? -1) + 1
        let (above, below) = links
        // Initial order: depth-first from each vertex in insertion order.
        var layers = Array(repeating: [Int](), count: rankCount)
        var seen = Array(repeating: false, count: vertices.count)
        for start in vertices.indices where !seen[start] {
            var stack = [start]
            while let vertex = stack.popLast() {
                if seen[vertex] { continue }
                seen[vertex] = true
                layers[vertices[vertex].rank].append(vertex)
                stack.append(contentsOf: below[vertex].reversed())
            }
        }
        var best = layers
        var bestCrossings = crossings(layers, below: below)
        for sweep in 0..<8 {
            let down = sweep % 2 == 0
            let sequence = down ? Array(1..<max(rankCount, 1)) : Array((0..<max(rankCount - 1, 0)).reversed())
            for rank in sequence {
                let reference = layers[down ? rank - 1 : rank + 1]
                var position: [Int: Int] = [:]
                for (index, vertex) in reference.enumerated() { position[vertex] = index }
                let scale = Double(max(reference.count, 1)) / Double(max(layers[rank].count, 1))
                let keyed = layers[rank].enumerated().map { index, vertex -> (Double, Int, Int) in
                    let neighbours = (down ? above[vertex] : below[vertex]).compactMap { position[$0] }
                    let centre =
                        neighbours.isEmpty
                        ? Double(index) * scale
                        : Double(neighbours.reduce(0, +)) / Double(neighbours.count)
                    return (centre, index, vertex)
                }
                layers[rank] = keyed.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
            }
            let count = crossings(layers, below: below)
            if count < bestCrossings {
                best = layers
                bestCrossings = count
            }
        }
        ranks = best
    }

    private func crossings(_ layers: [[Int]], below: [[Int]]) -> Int {
        var total = 0
        for rank in layers.indices.dropLast() {
            var position: [Int: Int] = [:]
            for (index, vertex) in layers[rank + 1].enumerated() { position[vertex] = index }
            var segments: [(Int, Int)] = []
            for (index, vertex) in layers[rank].enumerated() {
                for target in below[vertex] { if let lower = position[target] { segments.append((index, lower)) } }
            }
            for first in segments.indices {
                for second in segments.indices where second > first {
                    let (a, b) = (segments[first], segments[second])
                    if (a.0 - b.0) * (a.1 - b.1) < 0 { total += 1 }
                }
            }
        }
        return total
    }

    // MARK: - Coordinates

    private func gap(_ left: Int, _ right: Int) -> Double {
        vertices[left].role == .box && vertices[right].role == .box ? Self.boxGap : Self.smallGap
    }

    private mutating func place(_ links: (above: [[Int]], below: [[Int]])) {
        let (above, below) = links
        // Packed left to right to start with.
        for layer in ranks {
            var x = 0.0
            for (index, vertex) in layer.enumerated() {
                if index > 0 { x += gap(layer[index - 1], vertex) }
                vertices[vertex].x = x + vertices[vertex].width / 2
                x += vertices[vertex].width
            }
        }
        let rankIndices = Array(ranks.indices)
        for pass in 0..<10 {
            let sequence = pass % 2 == 0 ? rankIndices : rankIndices.reversed()
            for rank in sequence {
                let layer = ranks[rank]
                let desired = layer.map { vertex -> Double in
                    let neighbours =
                        pass >= 8
                        ? above[vertex] + below[vertex]
                        : (pass % 2 == 0 ? above[vertex] : below[vertex])
                    guard !neighbours.isEmpty else { return vertices[vertex].x }
                    return neighbours.map { vertices[$0].x }.reduce(0, +) / Double(neighbours.count)
                }
                let placed = separated(layer, desired: desired)
                for (vertex, x) in zip(layer, placed) { vertices[vertex].x = x }
            }
        }
        let left = vertices.map { $0.x - $0.width / 2 }.min() ?? 0
        let right = vertices.map { $0.x + $0.width / 2 }.max() ?? 0
        for vertex in vertices.indices { vertices[vertex].x -= left }
        var y = 0.0
        for layer in ranks where !layer.isEmpty {
            let height = layer.map { vertices[$0].height }.max() ?? 0
            for vertex in layer {
                // Boxes hang from the top of their rank, so a short box beside a tall one reads
                // as one row.
                vertices[vertex].y = y + vertices[vertex].height / 2
                vertices[vertex].bandTop = y
                vertices[vertex].bandBottom = y + height
            }
            y += height + Self.rankGap
        }
        size = (width: max(right - left, 0), height: max(y - Self.rankGap, 0))
    }

    /// The x centres closest (least squares) to `desired` that keep `layer`'s order and gaps: the
    /// pool-adjacent-violators algorithm on the centres less their minimum offsets.
    private func separated(_ layer: [Int], desired: [Double]) -> [Double] {
        guard !layer.isEmpty else { return [] }
        var offsets = [0.0]
        for index in layer.indices.dropFirst() {
            let left = layer[index - 1]
            let right = layer[index]
            offsets.append(offsets[index - 1] + vertices[left].width / 2 + gap(left, right) + vertices[right].width / 2)
        }
        // Blocks of (sum, count) whose means must not decrease.
        var blocks: [(sum: Double, count: Double, size: Int)] = []
        for (index, value) in desired.enumerated() {
            blocks.append((value - offsets[index], 1, 1))
            while blocks.count > 1,
                blocks[blocks.count - 2].sum / blocks[blocks.count - 2].count
                    > blocks[blocks.count - 1].sum / blocks[blocks.count - 1].count
            {
                let last = blocks.removeLast()
                blocks[blocks.count - 1].sum += last.sum
                blocks[blocks.count - 1].count += last.count
                blocks[blocks.count - 1].size += last.size
            }
        }
        var result: [Double] = []
        for block in blocks {
            let mean = block.sum / block.count
            for _ in 0..<block.size { result.append(mean + offsets[result.count]) }
        }
        return result
    }
}

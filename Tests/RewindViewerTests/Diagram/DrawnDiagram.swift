import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A ``StatechartDiagram``'s SVG read back with Foundation's XML parser: the geometry the tests
/// check, taken from the document as a browser would see it.
struct DrawnDiagram {
    struct Box: Equatable {
        var x: Double, y: Double, width: Double, height: Double
        var maxX: Double { x + width }
        var maxY: Double { y + height }

        func strictlyContains(_ other: Box) -> Bool {
            other.x > x && other.y > y && other.maxX < maxX && other.maxY < maxY
        }

        func overlaps(_ other: Box) -> Bool {
            x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY
        }

        /// Whether `point` lies inside, more than `margin` away from every side.
        func holds(_ point: (x: Double, y: Double), margin: Double) -> Bool {
            point.x > x + margin && point.x < maxX - margin && point.y > y + margin && point.y < maxY - margin
        }
    }

    struct State {
        var id: String
        var classes: Set<String>
        var box: Box
        /// The id of the state whose group holds this one's, nil at the top.
        var parent: String?
        /// Its group's dashed separators (`rw-separator` paths) between parallel regions.
        var separators: Int
    }

    struct Transition {
        var index: Int
        var event: String
        var classes: Set<String>
        var labels: [String]
        /// Each `rw-edge` path's `d`.
        var paths: [String]
        var arrowheads: Int
    }

    let document: XMLDocument
    let root: XMLElement
    private(set) var states: [State] = []
    private(set) var transitions: [Transition] = []
    let width: Double
    let height: Double
    let style: String

    init(_ svg: String) throws {
        document = try XMLDocument(data: Data(svg.utf8), options: [])
        root = try #require(document.rootElement())
        width = try #require(Double(Self.value(of: "width", in: root) ?? ""))
        height = try #require(Double(Self.value(of: "height", in: root) ?? ""))
        style = Self.elements("style", in: root).first?.stringValue ?? ""
        try collect(root, parent: nil)
    }

    /// An attribute's value (by name, namespace aside).
    static func value(of name: String, in element: XMLElement) -> String? {
        element.attributes?.first { $0.name == name || $0.localName == name }?.stringValue
    }

    /// The element's name without a prefix.
    static func name(of element: XMLElement) -> String {
        element.localName ?? element.name ?? ""
    }

    /// The child elements called `name`.
    static func elements(_ name: String, in element: XMLElement) -> [XMLElement] {
        (element.children ?? []).compactMap { $0 as? XMLElement }.filter { Self.name(of: $0) == name }
    }

    private static func classes(_ element: XMLElement) -> Set<String> {
        Set((Self.value(of: "class", in: element) ?? "").split(separator: " ").map(String.init))
    }

    private static func number(_ element: XMLElement, _ name: String) throws -> Double {
        try #require(Double(Self.value(of: name, in: element) ?? ""), "\(name) of \(element)")
    }

    private mutating func collect(_ element: XMLElement, parent: String?) throws {
        for child in element.children?.compactMap({ $0 as? XMLElement }) ?? [] {
            var inner = parent
            if Self.name(of: child) == "g", let id = Self.value(of: "data-state", in: child) {
                let rect = try #require(Self.elements("rect", in: child).first, "the box of \(id)")
                let box = Box(
                    x: try Self.number(rect, "x"), y: try Self.number(rect, "y"),
                    width: try Self.number(rect, "width"), height: try Self.number(rect, "height"))
                let separators = Self.elements("path", in: child).filter { Self.classes($0).contains("rw-separator") }
                    .count
                states.append(
                    State(id: id, classes: Self.classes(child), box: box, parent: parent, separators: separators))
                inner = id
            } else if Self.name(of: child) == "g", let index = Self.value(of: "data-transition", in: child) {
                let paths = Self.elements("path", in: child)
                transitions.append(
                    Transition(
                        index: try #require(Int(index)),
                        event: Self.value(of: "data-event", in: child) ?? "",
                        classes: Self.classes(child),
                        labels: Self.elements("text", in: child).compactMap(\.stringValue),
                        paths: paths.filter { Self.classes($0).contains("rw-edge") }.compactMap {
                            Self.value(of: "d", in: $0)
                        },
                        arrowheads: paths.filter { Self.classes($0).contains("rw-arrowhead") }.count))
            }
            try collect(child, parent: inner)
        }
    }

    func state(_ id: String) -> State? { states.first { $0.id == id } }

    /// Points along a path's `d` (M, L and C commands; curves sampled).
    static func samples(of path: String) -> [(x: Double, y: Double)] {
        var tokens: [String] = []
        var current = ""
        for character in path {
            if character.isLetter {
                if !current.isEmpty { tokens.append(current) }
                tokens.append(String(character))
                current = ""
            } else if character == " " || character == "," {
                if !current.isEmpty { tokens.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { tokens.append(current) }
        var points: [(x: Double, y: Double)] = []
        var position = (x: 0.0, y: 0.0)
        var index = 0
        func take() -> Double {
            defer { index += 1 }
            return index < tokens.count ? Double(tokens[index]) ?? .nan : .nan
        }
        while index < tokens.count {
            let command = tokens[index]
            index += 1
            switch command {
            case "M", "L":
                let next = (x: take(), y: take())
                if command == "L" {
                    for step in 1...8 {
                        let t = Double(step) / 8
                        points.append((position.x + (next.x - position.x) * t, position.y + (next.y - position.y) * t))
                    }
                } else {
                    points.append(next)
                }
                position = next
            case "C":
                let first = (x: take(), y: take())
                let second = (x: take(), y: take())
                let end = (x: take(), y: take())
                for step in 1...12 {
                    let t = Double(step) / 12
                    let u = 1 - t
                    let x =
                        u * u * u * position.x + 3 * u * u * t * first.x + 3 * u * t * t * second.x + t * t * t * end.x
                    let y =
                        u * u * u * position.y + 3 * u * u * t * first.y + 3 * u * t * t * second.y + t * t * t * end.y
                    points.append((x, y))
                }
                position = end
            case "V":
                let y = take()
                points.append((position.x, y))
                position.y = y
            default:
                return points
            }
        }
        return points
    }
}

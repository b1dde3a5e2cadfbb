extension MachineDefinition {
    /// The definition as a W3C SCXML document that ``init(scxml:name:)`` reads back into an equal
    /// definition.
    ///
    /// Standard SCXML carries the structure: states, `initial` attributes and `<initial>`
    /// elements, history, transitions (`cond="In('a')"` or `cond="!In('a')"` for guards SCXML can
    /// express), `<raise>`, `<send>`, `<cancel>` and `<log>`. Rewind's own fields go in the
    /// `https://rewind.dev/scxml` namespace (prefix `rewind`, declared only when used), which
    /// other SCXML tools ignore: `rewind:navigation` and `rewind:screen` on states and
    /// transitions, `rewind:validNextStates` and `rewind:ignoredEvents` on states,
    /// `rewind:guard` for guards other than `In`/`!In` (`all(named('valid'), not(inState('a')))`),
    /// and `<rewind:action name>` for custom actions.
    ///
    /// What SCXML cannot hold is not written, so the round trip is exact only for definitions
    /// SCXML can express: ids, event names and targets without whitespace (lists are
    /// space-separated), no children, transitions or initial targets on final states or history
    /// pseudo-states (beyond a history's default transition), a history type on every history,
    /// not both `initial` targets and an initial transition on one state (the targets win), no
    /// event or guard on initial and default transitions, and no control characters other than tab, line feed and carriage
    /// return in any text (others become U+FFFD). The validation pass rejects such definitions
    /// anyway.
    public func scxml() -> String {
        var writer = SCXMLWriter()
        for state in states { writer.write(state, depth: 1) }
        var header = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        header += #"<scxml xmlns="\#(SCXMLNamespace.scxml)""#
        if writer.usesRewindNamespace {
            header += #" xmlns:\#(SCXMLNamespace.rewindPrefix)="\#(SCXMLNamespace.rewind)""#
        }
        header += #" version="1.0""#
        header += SCXMLWriter.attribute("name", name)
        if !initial.isEmpty { header += SCXMLWriter.attribute("initial", initial.joined(separator: " ")) }
        return header + ">\n" + writer.output + "</scxml>\n"
    }
}

/// Writes the elements of an SCXML document, two spaces of indentation per level.
struct SCXMLWriter {
    private(set) var output = ""
    private(set) var usesRewindNamespace = false

    private static let rewind = SCXMLNamespace.rewindPrefix + ":"

    /// ` name="value"`, the value escaped.
    static func attribute(_ name: String, _ value: String) -> String {
        " " + name + "=\"" + XMLText.escape(value) + "\""
    }

    private mutating func rewindAttribute(_ name: String, _ value: String) -> String {
        usesRewindNamespace = true
        return Self.attribute(Self.rewind + name, value)
    }

    private mutating func line(_ depth: Int, _ text: String) {
        output += String(repeating: "  ", count: depth) + text + "\n"
    }

    private mutating func navigationAttributes(_ navigation: NavigationDeclaration?) -> String {
        guard let navigation else { return "" }
        let (keyword, screen) = SCXMLValueSyntax.navigationAttributes(navigation)
        var text = rewindAttribute("navigation", keyword)
        if let screen { text += rewindAttribute("screen", screen) }
        return text
    }

    mutating func write(_ state: StateDefinition, depth: Int) {
        let element: String
        switch state.kind {
        case .state: element = "state"
        case .parallel: element = "parallel"
        case .final: element = "final"
        case .history: element = "history"
        }
        var attributes = Self.attribute("id", state.id)
        if state.kind == .history {
            attributes += Self.attribute("type", (state.history ?? .shallow).rawValue)
            guard let transition = state.initialTransition else {
                line(depth, "<history\(attributes)/>")
                return
            }
            line(depth, "<history\(attributes)>")
            write(transition, depth: depth + 1)
            line(depth, "</history>")
            return
        }
        if state.kind == .state, !state.initial.isEmpty {
            attributes += Self.attribute("initial", state.initial.joined(separator: " "))
        }
        attributes += navigationAttributes(state.navigation)
        if let validNextStates = state.validNextStates {
            attributes += rewindAttribute("validNextStates", validNextStates.joined(separator: " "))
        }
        if !state.ignoredEvents.isEmpty {
            attributes += rewindAttribute("ignoredEvents", state.ignoredEvents.joined(separator: " "))
        }
        let hasInitialElement = state.kind == .state && state.initialTransition != nil && state.initial.isEmpty
        let hasContent =
            !state.onEntry.isEmpty || !state.onExit.isEmpty || hasInitialElement
            || (state.kind != .final && (!state.transitions.isEmpty || !state.children.isEmpty))
        guard hasContent else {
            line(depth, "<\(element)\(attributes)/>")
            return
        }
        line(depth, "<\(element)\(attributes)>")
        if hasInitialElement, let transition = state.initialTransition {
            line(depth + 1, "<initial>")
            write(transition, depth: depth + 2)
            line(depth + 1, "</initial>")
        }
        writeBlock("onentry", state.onEntry, depth: depth + 1)
        writeBlock("onexit", state.onExit, depth: depth + 1)
        if state.kind != .final {
            for transition in state.transitions { write(transition, depth: depth + 1) }
            for child in state.children { write(child, depth: depth + 1) }
        }
        line(depth, "</\(element)>")
    }

    private mutating func writeBlock(_ element: String, _ actions: [ActionDefinition], depth: Int) {
        guard !actions.isEmpty else { return }
        line(depth, "<\(element)>")
        for action in actions { write(action, depth: depth + 1) }
        line(depth, "</\(element)>")
    }

    mutating func write(_ transition: TransitionDefinition, depth: Int) {
        var attributes = ""
        if !transition.events.isEmpty {
            attributes += Self.attribute("event", transition.events.joined(separator: " "))
        }
        if !transition.targets.isEmpty {
            attributes += Self.attribute("target", transition.targets.joined(separator: " "))
        }
        if transition.kind == .internal { attributes += Self.attribute("type", "internal") }
        if let condition = transition.condition {
            if let text = GuardExpression.condition(for: condition) {
                attributes += Self.attribute("cond", text)
            } else {
                attributes += rewindAttribute("guard", GuardExpression.expression(for: condition))
            }
        }
        attributes += navigationAttributes(transition.navigation)
        guard !transition.actions.isEmpty else {
            line(depth, "<transition\(attributes)/>")
            return
        }
        line(depth, "<transition\(attributes)>")
        for action in transition.actions { write(action, depth: depth + 1) }
        line(depth, "</transition>")
    }

    private mutating func write(_ action: ActionDefinition, depth: Int) {
        switch action {
        case .raise(let event):
            line(depth, "<raise\(Self.attribute("event", event))/>")
        case .send(let event, let delay, let id):
            var attributes = Self.attribute("event", event)
            if let delay = SCXMLValueSyntax.text(ofDelay: delay) { attributes += Self.attribute("delay", delay) }
            if let id { attributes += Self.attribute("id", id) }
            line(depth, "<send\(attributes)/>")
        case .cancel(let sendID):
            line(depth, "<cancel\(Self.attribute("sendid", sendID))/>")
        case .log(let label, let message):
            var attributes = ""
            if let label { attributes += Self.attribute("label", label) }
            if let message { attributes += Self.attribute("expr", message) }
            line(depth, "<log\(attributes)/>")
        case .custom(let name):
            usesRewindNamespace = true
            line(depth, "<\(Self.rewind)action\(Self.attribute("name", name))/>")
        case .conditional(let branches):
            writeConditional(branches, depth: depth)
        case .undeliverableSend(let event, let target, let type, let delay, let id):
            var attributes = Self.attribute("event", event)
            if let target { attributes += Self.attribute("target", target) }
            if let type { attributes += Self.attribute("type", type) }
            if let delay = SCXMLValueSyntax.text(ofDelay: delay) { attributes += Self.attribute("delay", delay) }
            if let id { attributes += Self.attribute("id", id) }
            line(depth, "<send\(attributes)/>")
        }
    }

    /// Writes `<if>`, its `<elseif>`s and `<else>`: a branch's condition as `cond` when it has an
    /// SCXML form, else as `rewind:guard`. A first branch without a condition (possible in a
    /// definition built in code) is written as `<if cond="true">`'s equivalent in Rewind's
    /// syntax, `rewind:guard="all()"`; an `<else>` with branches after it likewise as an
    /// `<elseif rewind:guard="all()">`, so every branch keeps its place.
    private mutating func writeConditional(_ branches: [ConditionalBranch], depth: Int) {
        guard !branches.isEmpty else {
            usesRewindNamespace = true
            line(depth, "<if\(rewindAttribute("guard", "any()"))/>")
            return
        }
        for (position, branch) in branches.enumerated() {
            let isLast = position == branches.count - 1
            let element: String
            var attributes = ""
            if let condition = branch.condition {
                element = position == 0 ? "if" : "elseif"
                if let text = GuardExpression.condition(for: condition) {
                    attributes = Self.attribute("cond", text)
                } else {
                    attributes = rewindAttribute("guard", GuardExpression.expression(for: condition))
                }
            } else if position > 0, isLast {
                element = "else"
            } else {
                element = position == 0 ? "if" : "elseif"
                attributes = rewindAttribute("guard", "all()")
            }
            if position == 0 {
                line(depth, "<if\(attributes)>")
            } else {
                line(depth + 1, "<\(element)\(attributes)/>")
            }
            for action in branch.actions { write(action, depth: depth + 1) }
        }
        line(depth, "</if>")
    }
}

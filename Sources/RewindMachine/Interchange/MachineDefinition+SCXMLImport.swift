import Foundation

extension MachineDefinition {
    /// The name given to an imported machine when neither the caller nor the document names it.
    public static let defaultImportedName = "machine"

    /// Imports a W3C SCXML document (the data-model-free subset Rewind runs).
    ///
    /// Supported: `<scxml initial name>`, `<state id initial>`, `<parallel>`, `<final>`,
    /// `<history type>` with its default `<transition>`, `<initial>`, `<transition event target
    /// type cond>` (where `cond` is `In('id')` or `!In('id')`), `<onentry>`, `<onexit>`, and the
    /// executable content `<raise event>`, `<send event delay id target>` (no data; a `target` of
    /// `#_internal` makes it a raise), `<cancel sendid>` and `<log label expr>` (the expression
    /// kept as literal text). Event descriptors `foo.*` and `foo.` are normalised to `foo`.
    /// Rewind's own fields are read from the `https://rewind.dev/scxml` namespace (see
    /// ``scxml()``). Elements and attributes of other namespaces are ignored; the `datamodel`
    /// attribute of `<scxml>` is accepted but nothing may use expressions.
    ///
    /// A state without an `id` gets a generated one: `_` + its element name + `_` + the 1-based
    /// positions of it and its ancestors among their state siblings, joined by dots (the second
    /// state inside the first top-level state is `_state_1.2`), with more leading underscores if
    /// that collides with a declared id. The ids are deterministic: the same document always
    /// yields the same definition.
    ///
    /// - Parameters:
    ///   - scxml: the document's bytes.
    ///   - name: the machine's name; `nil` takes the `<scxml name>` attribute, else
    ///     ``defaultImportedName``.
    /// - Throws: ``SCXMLImportError`` naming the element and its line for malformed XML,
    ///   unsupported or unknown elements and attributes, unsupported conditions, duplicate ids.
    public init(scxml: Data, name: String? = nil) throws(SCXMLImportError) {
        let root = try SCXMLElementTreeReader.read(scxml)
        self = try SCXMLImporter(root: root).machine(name: name)
    }

    /// Imports the SCXML document in a file (see ``init(scxml:name:)``).
    ///
    /// - Parameters:
    ///   - url: the file's URL.
    ///   - name: the machine's name; `nil` takes the `<scxml name>` attribute, else the file's
    ///     name without its extension.
    public init(scxmlFileAt url: URL, name: String? = nil) throws(SCXMLImportError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw SCXMLImportError(.unreadableFile(path: url.path, description: "\(error)"))
        }
        let root = try SCXMLElementTreeReader.read(data)
        self = try SCXMLImporter(root: root).machine(
            name: name,
            fallbackName: url.deletingPathExtension().lastPathComponent
        )
    }
}

/// Turns an ``SCXMLElement`` tree into a ``MachineDefinition``.
struct SCXMLImporter {
    private let root: SCXMLElement
    private var declaredIDs: Set<String> = []

    /// SCXML elements Rewind knows but refuses, because they need a data model, scripts or
    /// external services.
    private static let unsupportedElements: Set<String> = [
        "datamodel", "data", "script", "assign", "invoke", "finalize", "foreach", "param", "content",
        "donedata",
    ]

    /// The elements that declare states (and so may carry an `id`).
    private static let stateElements: Set<String> = ["state", "parallel", "final", "history"]

    init(root: SCXMLElement) {
        self.root = root
    }

    func machine(name: String?, fallbackName: String = MachineDefinition.defaultImportedName)
        throws(SCXMLImportError) -> MachineDefinition
    {
        guard isSCXML(root), root.name.local == "scxml" else {
            throw SCXMLImportError(.notSCXML(rootElement: root.name.qualified), line: root.line, column: root.column)
        }
        var importer = self
        try importer.collectIDs(root)
        try checkAttributes(root, allowed: ["initial", "name", "version", "datamodel", "binding"])
        if root.hasText { throw error(.unexpectedText(element: "scxml"), at: root) }
        var states: [StateDefinition] = []
        for child in root.children where try importer.isRelevant(child) {
            switch child.name.local {
            case "state", "parallel", "final":
                states.append(try importer.state(child, path: [states.count + 1]))
            default:
                throw importer.placementError(child, parent: root)
            }
        }
        guard !states.isEmpty else { throw error(.noStates, at: root) }
        let definition = MachineDefinition(
            name: name ?? root.attribute("name") ?? fallbackName,
            initial: root.attribute("initial").map(SCXMLValueSyntax.list) ?? [],
            states: states
        )
        try ReferenceCheck(definition: definition).check(root: root)
        return definition
    }

    // MARK: - Elements

    private func isSCXML(_ element: SCXMLElement) -> Bool {
        element.name.namespace == SCXMLNamespace.scxml || element.name.namespace == nil
    }

    /// Whether the importer should look at `element`: SCXML and Rewind elements yes, elements of
    /// other namespaces no. Refuses unsupported SCXML elements and text.
    private func isRelevant(_ element: SCXMLElement) throws(SCXMLImportError) -> Bool {
        if isSCXML(element) {
            if Self.unsupportedElements.contains(element.name.local) {
                throw error(.unsupportedElement(element.name.qualified), at: element)
            }
            if element.hasText { throw error(.unexpectedText(element: element.name.qualified), at: element) }
            return true
        }
        if element.name.namespace == SCXMLNamespace.rewind {
            if element.hasText { throw error(.unexpectedText(element: element.name.qualified), at: element) }
            return true
        }
        return false
    }

    /// The SCXML elements Rewind supports, to tell a misplaced element from an unknown one.
    private static let knownElements: Set<String> = [
        "scxml", "state", "parallel", "final", "history", "initial", "transition", "onentry", "onexit",
        "raise", "send", "cancel", "log", "if", "elseif", "else",
    ]

    private func placementError(_ element: SCXMLElement, parent: SCXMLElement) -> SCXMLImportError {
        if isSCXML(element), Self.knownElements.contains(element.name.local) {
            return error(.misplacedElement(element.name.qualified, parent: parent.name.qualified), at: element)
        }
        if element.name.namespace == SCXMLNamespace.rewind, element.name.local == "action" {
            return error(.misplacedElement(element.name.qualified, parent: parent.name.qualified), at: element)
        }
        return error(.unknownElement(element.name.qualified), at: element)
    }

    private func error(_ reason: SCXMLImportError.Reason, at element: SCXMLElement) -> SCXMLImportError {
        SCXMLImportError(reason, line: element.line, column: element.column)
    }

    /// Refuses unprefixed attributes outside `allowed`; attributes of other namespaces are
    /// ignored except Rewind's, which must be in `allowedRewind`.
    private func checkAttributes(
        _ element: SCXMLElement,
        allowed: Set<String>,
        allowedRewind: Set<String> = []
    ) throws(SCXMLImportError) {
        for (name, _) in element.attributes {
            if name.namespace == nil, !allowed.contains(name.local) {
                throw error(
                    .unsupportedAttribute(element: element.name.qualified, attribute: name.qualified), at: element)
            }
            if name.namespace == SCXMLNamespace.rewind, !allowedRewind.contains(name.local) {
                throw error(
                    .unsupportedAttribute(element: element.name.qualified, attribute: name.qualified), at: element)
            }
        }
    }

    private func invalid(
        _ element: SCXMLElement,
        _ attribute: String,
        _ value: String,
        expected: String
    ) -> SCXMLImportError {
        error(
            .invalidAttributeValue(
                element: element.name.qualified, attribute: attribute, value: value, expected: expected),
            at: element
        )
    }

    // MARK: - States

    private mutating func collectIDs(_ element: SCXMLElement) throws(SCXMLImportError) {
        for child in element.children where isSCXML(child) {
            if Self.stateElements.contains(child.name.local), let id = child.attribute("id") {
                guard !id.isEmpty, !id.contains(where: \.isWhitespace) else {
                    throw invalid(child, "id", id, expected: "a non-empty id without whitespace")
                }
                guard declaredIDs.insert(id).inserted else { throw error(.duplicateStateID(id), at: child) }
            }
            try collectIDs(child)
        }
    }

    private func generatedID(for element: SCXMLElement, path: [Int]) -> String {
        var id = "_" + element.name.local + "_" + path.map(String.init).joined(separator: ".")
        while declaredIDs.contains(id) { id = "_" + id }
        return id
    }

    private static let stateRewindAttributes: Set<String> = [
        "navigation", "screen", "validNextStates", "ignoredEvents",
    ]

    private mutating func state(_ element: SCXMLElement, path: [Int]) throws(SCXMLImportError) -> StateDefinition {
        let elementName = element.name.local
        let id = element.attribute("id") ?? generatedID(for: element, path: path)
        var state = StateDefinition(id: id)
        switch elementName {
        case "state":
            try checkAttributes(element, allowed: ["id", "initial"], allowedRewind: Self.stateRewindAttributes)
            state.initial = element.attribute("initial").map(SCXMLValueSyntax.list) ?? []
        case "parallel":
            state.kind = .parallel
            try checkAttributes(element, allowed: ["id"], allowedRewind: Self.stateRewindAttributes)
        case "final":
            state.kind = .final
            try checkAttributes(element, allowed: ["id"], allowedRewind: Self.stateRewindAttributes)
        default:  // history
            return try history(element, id: id)
        }
        try readRewindStateAttributes(element, into: &state)

        for child in element.children where try isRelevant(child) {
            let childName = child.name.namespace == SCXMLNamespace.rewind ? "" : child.name.local
            switch (elementName, childName) {
            case (_, "onentry"):
                try checkAttributes(child, allowed: [])
                state.onEntry += try actions(in: child)
            case (_, "onexit"):
                try checkAttributes(child, allowed: [])
                state.onExit += try actions(in: child)
            case ("state", "transition"), ("parallel", "transition"):
                state.transitions.append(try transition(child))
            case ("state", "initial"):
                guard state.initialTransition == nil else {
                    throw error(.misplacedElement("initial", parent: element.name.qualified), at: child)
                }
                guard state.initial.isEmpty else {
                    throw error(
                        .unsupportedAttribute(element: element.name.qualified, attribute: "initial"), at: element)
                }
                state.initialTransition = try initialTransition(child)
            case ("state", "state"), ("state", "parallel"), ("state", "final"), ("state", "history"),
                ("parallel", "state"), ("parallel", "parallel"), ("parallel", "history"):
                state.children.append(try self.state(child, path: path + [state.children.count + 1]))
            default:
                throw placementError(child, parent: element)
            }
        }
        return state
    }

    private mutating func history(_ element: SCXMLElement, id: String) throws(SCXMLImportError) -> StateDefinition {
        try checkAttributes(element, allowed: ["id", "type"])
        var state = StateDefinition(id: id, kind: .history, history: .shallow)
        if let type = element.attribute("type") {
            guard let historyType = HistoryType(rawValue: type) else {
                throw invalid(element, "type", type, expected: "'shallow' or 'deep'")
            }
            state.history = historyType
        }
        for child in element.children where try isRelevant(child) {
            guard isSCXML(child), child.name.local == "transition", state.initialTransition == nil else {
                throw placementError(child, parent: element)
            }
            state.initialTransition = try defaultTransition(child)
        }
        return state
    }

    private func initialTransition(_ element: SCXMLElement) throws(SCXMLImportError) -> TransitionDefinition {
        try checkAttributes(element, allowed: [])
        var result: TransitionDefinition?
        for child in element.children where try isRelevant(child) {
            guard isSCXML(child), child.name.local == "transition", result == nil else {
                throw placementError(child, parent: element)
            }
            result = try defaultTransition(child)
        }
        guard let result else { throw error(.missingElement("transition", parent: "initial"), at: element) }
        return result
    }

    /// The transition of `<initial>` or `<history>`: no event, no condition.
    private func defaultTransition(_ element: SCXMLElement) throws(SCXMLImportError) -> TransitionDefinition {
        for attribute in ["event", "cond"] where element.attribute(attribute) != nil {
            throw error(.unsupportedAttribute(element: "transition", attribute: attribute), at: element)
        }
        if element.rewindAttribute("guard") != nil {
            throw error(.unsupportedAttribute(element: "transition", attribute: "rewind:guard"), at: element)
        }
        return try transition(element)
    }

    private func readRewindStateAttributes(_ element: SCXMLElement, into state: inout StateDefinition)
        throws(SCXMLImportError)
    {
        state.navigation = try navigation(element)
        if let states = element.rewindAttribute("validNextStates") {
            state.validNextStates = SCXMLValueSyntax.list(states)
        }
        if let events = element.rewindAttribute("ignoredEvents") {
            state.ignoredEvents = SCXMLValueSyntax.list(events)
        }
    }

    private func navigation(_ element: SCXMLElement) throws(SCXMLImportError) -> NavigationDeclaration? {
        let screen = element.rewindAttribute("screen")
        guard let keyword = element.rewindAttribute("navigation") else {
            if screen != nil {
                throw error(
                    .missingAttribute(element: element.name.qualified, attribute: "rewind:navigation"), at: element)
            }
            return nil
        }
        guard let navigation = SCXMLValueSyntax.navigation(keyword: keyword, screen: screen) else {
            throw invalid(
                element,
                "rewind:navigation",
                keyword,
                expected: "push, replace or setRoot (optional rewind:screen), pop or popToRoot (no rewind:screen), "
                    + "or popTo with rewind:screen"
            )
        }
        return navigation
    }

    // MARK: - Transitions

    private func transition(_ element: SCXMLElement) throws(SCXMLImportError) -> TransitionDefinition {
        try checkAttributes(
            element,
            allowed: ["event", "target", "type", "cond"],
            allowedRewind: ["guard", "navigation", "screen"]
        )
        var transition = TransitionDefinition()
        if let events = element.attribute("event") {
            for descriptor in SCXMLValueSyntax.list(events) {
                guard let normalized = SCXMLValueSyntax.normalizedEventDescriptor(descriptor) else {
                    throw invalid(
                        element, "event", events, expected: "event descriptors such as 'a', 'a.b', 'a.*' or '*'")
                }
                transition.events.append(normalized)
            }
        }
        transition.targets = element.attribute("target").map(SCXMLValueSyntax.list) ?? []
        if let type = element.attribute("type") {
            guard let kind = TransitionDefinition.Kind(rawValue: type) else {
                throw invalid(element, "type", type, expected: "'external' or 'internal'")
            }
            transition.kind = kind
        }
        transition.condition = try condition(of: element)
        transition.navigation = try navigation(element)
        transition.actions = try actions(in: element)
        return transition
    }

    /// The condition of a `<transition>`, `<if>` or `<elseif>`: its `cond` (`In('id')` or
    /// `!In('id')`) or its `rewind:guard`, `nil` when it has neither.
    private func condition(of element: SCXMLElement) throws(SCXMLImportError) -> GuardDefinition? {
        switch (element.attribute("cond"), element.rewindAttribute("guard")) {
        case (let condition?, nil):
            guard let parsed = GuardExpression.parseCondition(condition) else {
                throw error(.unsupportedCondition(condition), at: element)
            }
            return parsed
        case (nil, let expression?):
            guard let parsed = GuardExpression.parseExpression(expression) else {
                throw invalid(
                    element,
                    "rewind:guard",
                    expression,
                    expected: "named('x'), inState('x'), not(g), all(g, ...) or any(g, ...)"
                )
            }
            return parsed
        case (_?, _?):
            throw error(.unsupportedAttribute(element: element.name.qualified, attribute: "rewind:guard"), at: element)
        case (nil, nil):
            return nil
        }
    }

    // MARK: - Executable content

    private func actions(in element: SCXMLElement) throws(SCXMLImportError) -> [ActionDefinition] {
        var actions: [ActionDefinition] = []
        for child in element.children where try isRelevant(child) {
            actions.append(try action(child, parent: element))
        }
        return actions
    }

    private func action(_ element: SCXMLElement, parent: SCXMLElement) throws(SCXMLImportError) -> ActionDefinition {
        if element.name.namespace == SCXMLNamespace.rewind {
            guard element.name.local == "action" else {
                throw error(.unknownElement(element.name.qualified), at: element)
            }
            try checkAttributes(element, allowed: ["name"])
            guard let name = element.attribute("name") else {
                throw error(.missingAttribute(element: element.name.qualified, attribute: "name"), at: element)
            }
            try requireNoChildren(element)
            return .custom(name)
        }
        switch element.name.local {
        case "raise":
            try checkAttributes(element, allowed: ["event"])
            try requireNoChildren(element)
            return .raise(event: try eventName(element))
        case "send":
            return try send(element)
        case "if":
            return try conditional(element)
        case "cancel":
            try checkAttributes(element, allowed: ["sendid"])
            try requireNoChildren(element)
            guard let sendID = element.attribute("sendid") else {
                throw error(.missingAttribute(element: "cancel", attribute: "sendid"), at: element)
            }
            return .cancel(sendID: sendID)
        case "log":
            try checkAttributes(element, allowed: ["label", "expr"])
            try requireNoChildren(element)
            return .log(label: element.attribute("label"), message: element.attribute("expr"))
        default:
            throw placementError(element, parent: parent)
        }
    }

    /// `<if cond>` with its `<elseif cond>`s and `<else>`: each branch holds the executable
    /// content up to the next one. `<else>` comes last.
    private func conditional(_ element: SCXMLElement) throws(SCXMLImportError) -> ActionDefinition {
        try checkAttributes(element, allowed: ["cond"], allowedRewind: ["guard"])
        guard let first = try condition(of: element) else {
            throw error(.missingAttribute(element: "if", attribute: "cond"), at: element)
        }
        var branches = [ConditionalBranch(condition: first, actions: [])]
        var sawElse = false
        for child in element.children where try isRelevant(child) {
            if isSCXML(child), child.name.local == "elseif" || child.name.local == "else" {
                guard !sawElse else { throw error(.misplacedElement(child.name.local, parent: "if"), at: child) }
                try requireNoChildren(child)
                if child.name.local == "else" {
                    try checkAttributes(child, allowed: [])
                    sawElse = true
                    branches.append(ConditionalBranch(condition: nil, actions: []))
                } else {
                    try checkAttributes(child, allowed: ["cond"], allowedRewind: ["guard"])
                    guard let condition = try condition(of: child) else {
                        throw error(.missingAttribute(element: "elseif", attribute: "cond"), at: child)
                    }
                    branches.append(ConditionalBranch(condition: condition, actions: []))
                }
                continue
            }
            branches[branches.count - 1].actions.append(try action(child, parent: element))
        }
        return .conditional(branches)
    }

    private func send(_ element: SCXMLElement) throws(SCXMLImportError) -> ActionDefinition {
        try checkAttributes(element, allowed: ["event", "delay", "target", "id", "type"])
        try requireNoChildren(element)
        let event = try eventName(element)
        var delay = Duration.zero
        if let text = element.attribute("delay") {
            guard let parsed = SCXMLValueSyntax.delay(fromText: text) else {
                throw invalid(element, "delay", text, expected: "a duration such as '1s', '1.5s' or '500ms'")
            }
            delay = parsed
        }
        let type = element.attribute("type")
        if let type, !ActionDefinition.isSCXMLEventProcessor(type) {
            return .undeliverableSend(
                event: event, target: element.attribute("target"), type: type, delay: delay,
                id: element.attribute("id"))
        }
        switch element.attribute("target") {
        case nil:
            return .send(event: event, delay: delay, id: element.attribute("id"))
        case "#_internal":
            guard delay == .zero else {
                throw error(.unsupportedAttribute(element: "send", attribute: "delay"), at: element)
            }
            return .raise(event: event)
        case let target?:
            return .undeliverableSend(
                event: event, target: target, type: type, delay: delay, id: element.attribute("id"))
        }
    }

    private func eventName(_ element: SCXMLElement) throws(SCXMLImportError) -> String {
        guard let event = element.attribute("event") else {
            throw error(.missingAttribute(element: element.name.qualified, attribute: "event"), at: element)
        }
        guard !event.isEmpty, !event.contains(where: \.isWhitespace), !event.contains("*") else {
            throw invalid(element, "event", event, expected: "an event name without spaces or '*'")
        }
        return event
    }

    private func requireNoChildren(_ element: SCXMLElement) throws(SCXMLImportError) {
        for child in element.children where try isRelevant(child) {
            throw placementError(child, parent: element)
        }
    }
}

// The `Codable` conformances behind the JSON interchange document (see
// `MachineDefinition.jsonDocument()`). They are written by hand so that the encoding is stable
// and readable: keys named after the Swift properties, enums as tagged objects
// (`{"inState": "a"}`, `{"send": {"event": "e"}}`) rather than synthesised `_0` keys, defaults
// omitted, unknown keys refused.

extension MachineDefinition: Codable {
    /// Decodes the `machine` object of the interchange document.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: InterchangeCodingKey.self)
        try container.rejectUnknownKeys(["name", "initial", "states"])
        self.init(
            name: try container.decode(String.self, forKey: "name"),
            initial: try container.decodeList([String].self, forKey: "initial"),
            states: try container.decode([StateDefinition].self, forKey: "states")
        )
    }

    /// Encodes the `machine` object of the interchange document.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: InterchangeCodingKey.self)
        try container.encode(name, forKey: "name")
        try container.encodeList(initial, forKey: "initial")
        try container.encode(states, forKey: "states")
    }
}

extension StateDefinition: Codable {
    private static let keys: Set<String> = [
        "id", "kind", "history", "initial", "initialTransition", "children", "transitions", "onEntry", "onExit",
        "navigation", "validNextStates", "ignoredEvents",
    ]

    /// Decodes a state; absent keys take their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: InterchangeCodingKey.self)
        try container.rejectUnknownKeys(Self.keys)
        self.init(
            id: try container.decode(String.self, forKey: "id"),
            kind: try container.decodeIfPresent(Kind.self, forKey: "kind") ?? .state,
            history: try container.decodeIfPresent(HistoryType.self, forKey: "history"),
            initial: try container.decodeList([String].self, forKey: "initial"),
            initialTransition: try container.decodeIfPresent(TransitionDefinition.self, forKey: "initialTransition"),
            children: try container.decodeList([StateDefinition].self, forKey: "children"),
            transitions: try container.decodeList([TransitionDefinition].self, forKey: "transitions"),
            onEntry: try container.decodeList([ActionDefinition].self, forKey: "onEntry"),
            onExit: try container.decodeList([ActionDefinition].self, forKey: "onExit"),
            navigation: try container.decodeIfPresent(NavigationDeclaration.self, forKey: "navigation"),
            validNextStates: try container.decodeIfPresent([String].self, forKey: "validNextStates"),
            ignoredEvents: try container.decodeList([String].self, forKey: "ignoredEvents")
        )
    }

    /// Encodes a state, omitting every property that has its default value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: InterchangeCodingKey.self)
        try container.encode(id, forKey: "id")
        if kind != .state { try container.encode(kind, forKey: "kind") }
        try container.encodeIfPresent(history, forKey: "history")
        try container.encodeList(initial, forKey: "initial")
        try container.encodeIfPresent(initialTransition, forKey: "initialTransition")
        try container.encodeList(children, forKey: "children")
        try container.encodeList(transitions, forKey: "transitions")
        try container.encodeList(onEntry, forKey: "onEntry")
        try container.encodeList(onExit, forKey: "onExit")
        try container.encodeIfPresent(navigation, forKey: "navigation")
        try container.encodeIfPresent(validNextStates, forKey: "validNextStates")
        try container.encodeList(ignoredEvents, forKey: "ignoredEvents")
    }
}

extension StateDefinition.Kind: Codable {}

extension HistoryType: Codable {}

extension TransitionDefinition.Kind: Codable {}

extension TransitionDefinition: Codable {
    /// Decodes a transition; absent keys take their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: InterchangeCodingKey.self)
        try container.rejectUnknownKeys(["events", "targets", "kind", "condition", "actions", "navigation"])
        self.init(
            events: try container.decodeList([String].self, forKey: "events"),
            targets: try container.decodeList([String].self, forKey: "targets"),
            kind: try container.decodeIfPresent(Kind.self, forKey: "kind") ?? .external,
            condition: try container.decodeIfPresent(GuardDefinition.self, forKey: "condition"),
            actions: try container.decodeList([ActionDefinition].self, forKey: "actions"),
            navigation: try container.decodeIfPresent(NavigationDeclaration.self, forKey: "navigation")
        )
    }

    /// Encodes a transition, omitting every property that has its default value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: InterchangeCodingKey.self)
        try container.encodeList(events, forKey: "events")
        try container.encodeList(targets, forKey: "targets")
        if kind != .external { try container.encode(kind, forKey: "kind") }
        try container.encodeIfPresent(condition, forKey: "condition")
        try container.encodeList(actions, forKey: "actions")
        try container.encodeIfPresent(navigation, forKey: "navigation")
    }
}

extension GuardDefinition: Codable {
    private static let cases: Set<String> = ["named", "inState", "not", "all", "any"]

    /// Decodes a guard from its tagged form: `{"named": "x"}`, `{"inState": "a"}`,
    /// `{"not": guard}`, `{"all": [guards]}` or `{"any": [guards]}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: InterchangeCodingKey.self)
        let key = try container.singleCase(of: Self.cases, for: "guard")
        switch key.stringValue {
        case "named": self = .named(try container.decode(String.self, forKey: key))
        case "inState": self = .inState(try container.decode(String.self, forKey: key))
        case "not": self = .not(try container.decode(GuardDefinition.self, forKey: key))
        case "all": self = .all(try container.decode([GuardDefinition].self, forKey: key))
        default: self = .any(try container.decode([GuardDefinition].self, forKey: key))
        }
    }

    /// Encodes a guard in its tagged form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: InterchangeCodingKey.self)
        switch self {
        case .named(let name): try container.encode(name, forKey: "named")
        case .inState(let id): try container.encode(id, forKey: "inState")
        case .not(let inner): try container.encode(inner, forKey: "not")
        case .all(let guards): try container.encode(guards, forKey: "all")
        case .any(let guards): try container.encode(guards, forKey: "any")
        }
    }
}

extension ActionDefinition: Codable {
    private static let cases: Set<String> = ["raise", "send", "cancel", "log", "custom", "if", "undeliverableSend"]

    /// Decodes an action from its tagged form: `{"raise": {"event": "e"}}`,
    /// `{"send": {"event": "e", "delayMilliseconds": 500, "id": "t"}}`,
    /// `{"cancel": {"sendID": "t"}}`, `{"log": {"label": "l", "message": "m"}}`,
    /// `{"custom": {"name": "x"}}`, `{"if": {"branches": [{"condition": guard, "actions": [...]},
    /// {"actions": [...]}]}}` or `{"undeliverableSend": {"event": "e", "target": "#_parent",
    /// "type": "…", "delayMilliseconds": 500, "id": "t"}}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: InterchangeCodingKey.self)
        let key = try container.singleCase(of: Self.cases, for: "action")
        let fields = try container.nestedContainer(keyedBy: InterchangeCodingKey.self, forKey: key)
        switch key.stringValue {
        case "raise":
            try fields.rejectUnknownKeys(["event"])
            self = .raise(event: try fields.decode(String.self, forKey: "event"))
        case "send":
            try fields.rejectUnknownKeys(["event", "delayMilliseconds", "id"])
            self = .send(
                event: try fields.decode(String.self, forKey: "event"),
                delay: .milliseconds(try fields.decodeIfPresent(Int.self, forKey: "delayMilliseconds") ?? 0),
                id: try fields.decodeIfPresent(String.self, forKey: "id")
            )
        case "cancel":
            try fields.rejectUnknownKeys(["sendID"])
            self = .cancel(sendID: try fields.decode(String.self, forKey: "sendID"))
        case "log":
            try fields.rejectUnknownKeys(["label", "message"])
            self = .log(
                label: try fields.decodeIfPresent(String.self, forKey: "label"),
                message: try fields.decodeIfPresent(String.self, forKey: "message")
            )
        case "if":
            try fields.rejectUnknownKeys(["branches"])
            self = .conditional(try fields.decode([ConditionalBranch].self, forKey: "branches"))
        case "undeliverableSend":
            try fields.rejectUnknownKeys(["event", "target", "type", "delayMilliseconds", "id"])
            self = .undeliverableSend(
                event: try fields.decode(String.self, forKey: "event"),
                target: try fields.decodeIfPresent(String.self, forKey: "target"),
                type: try fields.decodeIfPresent(String.self, forKey: "type"),
                delay: .milliseconds(try fields.decodeIfPresent(Int.self, forKey: "delayMilliseconds") ?? 0),
                id: try fields.decodeIfPresent(String.self, forKey: "id")
            )
        default:
            try fields.rejectUnknownKeys(["name"])
            self = .custom(try fields.decode(String.self, forKey: "name"))
        }
    }

    /// Encodes an action in its tagged form, omitting defaults (a zero delay, `nil` fields); a
    /// delay is written as whole milliseconds, `delayMilliseconds`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: InterchangeCodingKey.self)
        switch self {
        case .raise(let event):
            var fields = container.nestedContainer(keyedBy: InterchangeCodingKey.self, forKey: "raise")
            try fields.encode(event, forKey: "event")
        case .send(let event, let delay, let id):
            var fields = container.nestedContainer(keyedBy: InterchangeCodingKey.self, forKey: "send")
            try fields.encode(event, forKey: "event")
            let delayMilliseconds = delay.wholeMilliseconds
            if delayMilliseconds != 0 { try fields.encode(delayMilliseconds, forKey: "delayMilliseconds") }
            try fields.encodeIfPresent(id, forKey: "id")
        case .cancel(let sendID):
            var fields = container.nestedContainer(keyedBy: InterchangeCodingKey.self, forKey: "cancel")
            try fields.encode(sendID, forKey: "sendID")
        case .log(let label, let message):
            var fields = container.nestedContainer(keyedBy: InterchangeCodingKey.self, forKey: "log")
            try fields.encodeIfPresent(label, forKey: "label")
            try fields.encodeIfPresent(message, forKey: "message")
        case .custom(let name):
            var fields = container.nestedContainer(keyedBy: InterchangeCodingKey.self, forKey: "custom")
            try fields.encode(name, forKey: "name")
        case .conditional(let branches):
            var fields = container.nestedContainer(keyedBy: InterchangeCodingKey.self, forKey: "if")
            try fields.encode(branches, forKey: "branches")
        case .undeliverableSend(let event, let target, let type, let delay, let id):
            var fields = container.nestedContainer(keyedBy: InterchangeCodingKey.self, forKey: "undeliverableSend")
            try fields.encode(event, forKey: "event")
            try fields.encodeIfPresent(target, forKey: "target")
            try fields.encodeIfPresent(type, forKey: "type")
            let delayMilliseconds = delay.wholeMilliseconds
            if delayMilliseconds != 0 { try fields.encode(delayMilliseconds, forKey: "delayMilliseconds") }
            try fields.encodeIfPresent(id, forKey: "id")
        }
    }
}

extension ConditionalBranch: Codable {
    /// Decodes a branch: `{"condition": guard, "actions": [...]}`, the condition absent for
    /// `<else>` and the actions absent when there are none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: InterchangeCodingKey.self)
        try container.rejectUnknownKeys(["condition", "actions"])
        self.init(
            condition: try container.decodeIfPresent(GuardDefinition.self, forKey: "condition"),
            actions: try container.decodeList([ActionDefinition].self, forKey: "actions")
        )
    }

    /// Encodes a branch, omitting a missing condition and an empty action list.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: InterchangeCodingKey.self)
        try container.encodeIfPresent(condition, forKey: "condition")
        try container.encodeList(actions, forKey: "actions")
    }
}

extension NavigationDeclaration: Codable {
    private static let cases: Set<String> = ["push", "replace", "setRoot", "pop", "popToRoot", "popTo"]

    /// Decodes a navigation declaration from its tagged form: `{"push": {"screen": "s"}}` (the
    /// screen optional for push, replace and setRoot), `{"pop": {}}`, `{"popToRoot": {}}`,
    /// `{"popTo": {"screen": "s"}}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: InterchangeCodingKey.self)
        let key = try container.singleCase(of: Self.cases, for: "navigation declaration")
        let fields = try container.nestedContainer(keyedBy: InterchangeCodingKey.self, forKey: key)
        switch key.stringValue {
        case "pop", "popToRoot":
            try fields.rejectUnknownKeys([])
            self = key.stringValue == "pop" ? .pop : .popToRoot
        case "popTo":
            try fields.rejectUnknownKeys(["screen"])
            self = .popTo(screen: try fields.decode(String.self, forKey: "screen"))
        default:
            try fields.rejectUnknownKeys(["screen"])
            let screen = try fields.decodeIfPresent(String.self, forKey: "screen")
            switch key.stringValue {
            case "push": self = .push(screen: screen)
            case "replace": self = .replace(screen: screen)
            default: self = .setRoot(screen: screen)
            }
        }
    }

    /// Encodes a navigation declaration in its tagged form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: InterchangeCodingKey.self)
        let (keyword, screen) = SCXMLValueSyntax.navigationAttributes(self)
        var fields = container.nestedContainer(
            keyedBy: InterchangeCodingKey.self, forKey: InterchangeCodingKey(keyword))
        try fields.encodeIfPresent(screen, forKey: "screen")
    }
}

// Hand-written conversions between the machine's state values and `JSONValue` trees, with the
// same member names and shapes as their synthesized `Codable` encodings: written with the fast
// writer (``JSONValue/jsonBytes()``) they give the bytes `JSONEncoder` with `.sortedKeys` gives,
// and `JSONDecoder` reads them back (and the other way round). Snapshots use them to skip the
// `Encoder`/`Decoder` machinery.

extension MachineState {
    /// The state as the JSON value of its `Codable` encoding.
    public var jsonValue: JSONValue {
        .object([
            "configuration": .array(configuration.map(JSONValue.string)),
            "history": .object(history.mapValues { .array($0.map(JSONValue.string)) }),
            "context": context,
            "data": .object(data),
            "internalQueue": .array(internalQueue.map(\.jsonValue)),
            "pendingSends": .array(pendingSends.map(\.jsonValue)),
            "isFinished": .bool(isFinished),
        ])
    }

    /// The state a JSON value of its `Codable` encoding stands for (as ``jsonValue`` makes,
    /// or `JSONEncoder` wrote). Unknown members are ignored, as `Codable` does.
    ///
    /// - Throws: ``JSONShapeError`` naming the first member that is missing or of the wrong kind.
    public init(jsonValue: JSONValue) throws(JSONShapeError) {
        let members = try JSONShape.object(jsonValue, at: [])
        let configuration = try JSONShape.strings(
            try JSONShape.member("configuration", of: members, at: []), at: ["configuration"])

        let historyMembers = try JSONShape.object(
            try JSONShape.member("history", of: members, at: []), at: ["history"])
        var history: [String: [String]] = [:]
        history.reserveCapacity(historyMembers.count)
        for (key, value) in historyMembers {
            history[key] = try JSONShape.strings(value, at: ["history", key])
        }

        let context = try JSONShape.member("context", of: members, at: [])
        let data = try JSONShape.object(try JSONShape.member("data", of: members, at: []), at: ["data"])

        let queue = try JSONShape.array(
            try JSONShape.member("internalQueue", of: members, at: []), at: ["internalQueue"])
        var internalQueue: [Event] = []
        internalQueue.reserveCapacity(queue.count)
        for (index, element) in queue.enumerated() {
            internalQueue.append(try Event(jsonValue: element, at: ["internalQueue", String(index)]))
        }

        let sends = try JSONShape.array(
            try JSONShape.member("pendingSends", of: members, at: []), at: ["pendingSends"])
        var pendingSends: [ScheduledEvent] = []
        pendingSends.reserveCapacity(sends.count)
        for (index, element) in sends.enumerated() {
            pendingSends.append(try ScheduledEvent(jsonValue: element, at: ["pendingSends", String(index)]))
        }

        let isFinished = try JSONShape.bool(
            try JSONShape.member("isFinished", of: members, at: []), at: ["isFinished"])
        self.init(
            configuration: configuration, history: history, context: context, data: data,
            internalQueue: internalQueue, pendingSends: pendingSends, isFinished: isFinished)
    }
}

extension Event {
    /// The event as the JSON value of its `Codable` encoding: `{"name": …, "payload": …}`.
    public var jsonValue: JSONValue {
        .object(["name": .string(name), "payload": payload])
    }

    /// The event a JSON value of its `Codable` encoding stands for.
    ///
    /// - Throws: ``JSONShapeError`` when `name` or `payload` is missing or `name` is not a string.
    public init(jsonValue: JSONValue) throws(JSONShapeError) {
        try self.init(jsonValue: jsonValue, at: [])
    }

    init(jsonValue: JSONValue, at path: @autoclosure () -> [String]) throws(JSONShapeError) {
        let members = try JSONShape.object(jsonValue, at: path())
        let name = try JSONShape.string(try JSONShape.member("name", of: members, at: path()), at: path() + ["name"])
        self.init(name, payload: try JSONShape.member("payload", of: members, at: path()))
    }
}

extension ScheduledEvent {
    /// The scheduled event as the JSON value of its `Codable` encoding (`sendID` left out when
    /// `nil`).
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "event": event.jsonValue,
            "dueMilliseconds": .number(due.wholeMilliseconds),
        ]
        if let sendID { members["sendID"] = .string(sendID) }
        return .object(members)
    }

    /// The scheduled event a JSON value of its `Codable` encoding stands for; a missing or `null`
    /// `sendID` is `nil`.
    ///
    /// - Throws: ``JSONShapeError`` naming the member that is missing or of the wrong kind.
    public init(jsonValue: JSONValue) throws(JSONShapeError) {
        try self.init(jsonValue: jsonValue, at: [])
    }

    init(jsonValue: JSONValue, at path: @autoclosure () -> [String]) throws(JSONShapeError) {
        let members = try JSONShape.object(jsonValue, at: path())
        let event = try Event(jsonValue: try JSONShape.member("event", of: members, at: path()), at: path() + ["event"])
        let due = try JSONShape.int64(
            try JSONShape.member("dueMilliseconds", of: members, at: path()), at: path() + ["dueMilliseconds"])
        var sendID: String?
        if let value = members["sendID"], !value.isNull {
            sendID = try JSONShape.string(value, at: path() + ["sendID"])
        }
        self.init(event: event, due: .milliseconds(due), sendID: sendID)
    }
}

extension ScreenStack {
    /// The stack as the JSON value of its `Codable` encoding:
    /// `{"entries": [{"screen": …, "data": …}, …], "screens": […]}`.
    public var jsonValue: JSONValue {
        .object([
            "entries": .array(entries.map(\.jsonValue)),
            "screens": .array(entries.map { .string($0.screen) }),
        ])
    }

    /// The stack a JSON value of its `Codable` encoding stands for: `entries` when present, else
    /// the first format's `screens` (entries without data).
    ///
    /// - Throws: ``JSONShapeError`` when neither `entries` (an array of `{"screen", "data"}`
    ///   objects) nor `screens` (an array of strings) is there in its shape.
    public init(jsonValue: JSONValue) throws(JSONShapeError) {
        let members = try JSONShape.object(jsonValue, at: [])
        if let value = members["entries"] {
            let items = try JSONShape.array(value, at: ["entries"])
            var entries: [NavigationEntry] = []
            entries.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                entries.append(try NavigationEntry(jsonValue: item, at: ["entries", String(index)]))
            }
            self.init(entries: entries)
        } else {
            self.init(
                screens: try JSONShape.strings(try JSONShape.member("screens", of: members, at: []), at: ["screens"]))
        }
    }
}

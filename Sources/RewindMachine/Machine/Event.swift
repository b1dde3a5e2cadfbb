/// An event sent to a machine: a name (its identity in the log) and an optional payload.
///
/// Names are strings so that the log stays readable; an app can use an `enum Event: String` and
/// pass its cases wherever a name is expected.
public struct Event: Hashable, Sendable, Codable {
    /// The event's name, for example `"loggedIn"` or `"done.state.checkout"`.
    public var name: String

    /// The data that travels with the event; `null` when there is none.
    public var payload: JSONValue

    /// Creates an event from its name and payload.
    public init(_ name: String, payload: JSONValue = .null) {
        self.name = name
        self.payload = payload
    }

    /// Creates an event named by a typed identifier, such as a case of `enum Event: String`.
    public init<Name: RawRepresentable<String>>(_ name: Name, payload: JSONValue = .null) {
        self.init(name.rawValue, payload: payload)
    }

    /// Creates an event whose payload is any `Encodable` value.
    ///
    /// - Throws: `EncodingError` when the payload cannot be encoded.
    public init(_ name: String, encoding payload: some Encodable) throws {
        self.init(name, payload: try JSONValue(encoding: payload))
    }

    /// Whether the event descriptor `descriptor` matches this event (W3C SCXML §3.12.1): `"*"`
    /// matches every event, `"a.b"` (or `"a.b.*"`) matches `"a.b"` and `"a.b.c"` but not `"a.bc"`.
    public func matches(_ descriptor: String) -> Bool {
        Event.name(name, matches: descriptor)
    }

    static func name(_ name: String, matches descriptor: String) -> Bool {
        var descriptor = Substring(descriptor)
        if descriptor == "*" { return true }
        if descriptor.hasSuffix(".*") {
            descriptor = descriptor.dropLast(2)
        } else if descriptor.hasSuffix(".") {
            descriptor = descriptor.dropLast()
        }
        guard name.hasPrefix(descriptor) else { return false }
        if name.utf8.count == descriptor.utf8.count { return true }
        let next = name.utf8[name.utf8.index(name.utf8.startIndex, offsetBy: descriptor.utf8.count)]
        return next == UInt8(ascii: ".")
    }
}

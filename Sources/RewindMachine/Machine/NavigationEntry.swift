/// One entry of a ``ScreenStack``: a screen and the data it was entered with, as one value of
/// SwiftUI's `NavigationStack(path:)` or one view controller of a `UINavigationController`.
///
/// The same screen pushed twice with different data is two entries (`detail {"character":"日"}`
/// under `detail {"character":"本"}`). `data` is `.null` when the screen was entered without data.
public struct NavigationEntry: Hashable, Sendable, Codable {
    /// The screen (usually the id of the state that declared the navigation).
    public var screen: String
    /// The data the screen was entered with, `.null` for none.
    public var data: JSONValue

    /// Creates an entry.
    public init(screen: String, data: JSONValue = .null) {
        self.screen = screen
        self.data = data
    }

    /// The data decoded as `type`; `nil` when the entry has none.
    ///
    /// - Throws: `DecodingError` when the data does not have the shape of `type`.
    public func data<T: Decodable>(as type: T.Type = T.self) throws -> T? {
        data.isNull ? nil : try data.decode(type)
    }

    /// The entry as the JSON value of its `Codable` encoding: `{"screen": …, "data": …}`.
    public var jsonValue: JSONValue {
        .object(["screen": .string(screen), "data": data])
    }

    /// The entry a JSON value of its `Codable` encoding stands for; a missing `data` is `.null`.
    ///
    /// - Throws: ``JSONShapeError`` when it is not an object or `screen` is missing or not a string.
    public init(jsonValue: JSONValue) throws(JSONShapeError) {
        try self.init(jsonValue: jsonValue, at: [])
    }

    init(jsonValue: JSONValue, at path: @autoclosure () -> [String]) throws(JSONShapeError) {
        let members = try JSONShape.object(jsonValue, at: path())
        let screen = try JSONShape.string(
            try JSONShape.member("screen", of: members, at: path()), at: path() + ["screen"])
        self.init(screen: screen, data: members["data"] ?? .null)
    }

    private enum CodingKeys: String, CodingKey {
        case screen, data
    }

    /// Decodes `{"screen": …, "data": …}`; a missing `data` is `.null`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        screen = try container.decode(String.self, forKey: .screen)
        data = try container.decodeIfPresent(JSONValue.self, forKey: .data) ?? .null
    }

    /// Encodes `{"screen": …, "data": …}` (`data` always present, `null` for none).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(screen, forKey: .screen)
        try container.encode(data, forKey: .data)
    }
}

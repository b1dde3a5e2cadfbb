extension ScreenStack {
    /// Every entry decoded as the app's route type, root first.
    ///
    /// Each entry is decoded from the JSON value `{"screen": screen, "data": data}` (its `Codable`
    /// encoding), so a route is any `Decodable` that reads those two members: a struct with
    /// `screen` and `data` members, or an enum with one case per screen. See
    /// ``navigationPath(as:)`` for an example.
    ///
    /// - Throws: ``NavigationRouteError`` naming the first entry (index, screen) that does not
    ///   decode.
    public func routes<Route: Decodable>(as type: Route.Type = Route.self) throws(NavigationRouteError) -> [Route] {
        try decode(entries[...], as: type)
    }

    /// The entries above the root decoded as the app's route type, bottom first: the `path` of a
    /// SwiftUI `NavigationStack(path:)` whose root view shows the root entry.
    ///
    /// Each entry is decoded from `{"screen": screen, "data": data}`:
    ///
    /// ```swift
    /// enum Route: Hashable, Decodable {
    ///     case detail(Kanji)
    ///     case list(Word)
    ///
    ///     private enum CodingKeys: String, CodingKey { case screen, data }
    ///
    ///     init(from decoder: any Decoder) throws {
    ///         let entry = try decoder.container(keyedBy: CodingKeys.self)
    ///         switch try entry.decode(String.self, forKey: .screen) {
    ///         case "detail": self = .detail(try entry.decode(Kanji.self, forKey: .data))
    ///         case "list": self = .list(try entry.decode(Word.self, forKey: .data))
    ///         case let screen:
    ///             throw DecodingError.dataCorruptedError(
    ///                 forKey: .screen, in: entry, debugDescription: "no route for screen \(screen)")
    ///         }
    ///     }
    /// }
    ///
    /// // all › detail(日) › list(日本)
    /// let path = try session.navigationPath(as: Route.self)   // [.detail(日), .list(日本)]
    /// NavigationStack(path: .constant(path)) {
    ///     AllKanjiView()
    ///         .navigationDestination(for: Route.self) { route in RouteView(route: route) }
    /// }
    /// ```
    ///
    /// - Throws: ``NavigationRouteError`` naming the first entry (its index in ``entries``, its
    ///   screen) that does not decode.
    public func navigationPath<Route: Decodable>(
        as type: Route.Type = Route.self
    ) throws(NavigationRouteError) -> [Route] {
        try decode(entries.dropFirst(), as: type)
    }

    private func decode<Route: Decodable>(
        _ slice: ArraySlice<NavigationEntry>, as type: Route.Type
    ) throws(NavigationRouteError) -> [Route] {
        var routes: [Route] = []
        routes.reserveCapacity(slice.count)
        for index in slice.indices {
            let entry = slice[index]
            do {
                routes.append(try entry.jsonValue.decode(type))
            } catch {
                throw NavigationRouteError(
                    index: index, screen: entry.screen, route: String(describing: type),
                    reason: String(describing: error))
            }
        }
        return routes
    }
}

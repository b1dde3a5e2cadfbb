/// A navigation stack entry that does not decode as the app's route type
/// (``ScreenStack/navigationPath(as:)``, ``ScreenStack/routes(as:)``).
public struct NavigationRouteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The entry's index in ``ScreenStack/entries`` (0 is the root).
    public var index: Int
    /// The entry's screen.
    public var screen: String
    /// The route type asked for.
    public var route: String
    /// Why decoding failed (the decoder's error).
    public var reason: String

    /// Creates the error.
    public init(index: Int, screen: String, route: String, reason: String) {
        self.index = index
        self.screen = screen
        self.route = route
        self.reason = reason
    }

    /// E.g. `navigation entry 2 (screen 'list') does not decode as Route: …`.
    public var description: String {
        "navigation entry \(index) (screen '\(screen)') does not decode as \(route): \(reason)"
    }
}

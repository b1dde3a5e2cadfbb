import RewindMachine

extension Session {
    /// The navigation stack above its root decoded as the app's route type, bottom first: ready
    /// for SwiftUI's `NavigationStack(path:)` (see ``ScreenStack/navigationPath(as:)``; each
    /// entry is decoded from `{"screen": screen, "data": data}`).
    ///
    /// - Throws: ``NavigationRouteError`` naming the first entry (index, screen) that does not
    ///   decode.
    public func navigationPath<Route: Decodable>(as type: Route.Type = Route.self) throws(NavigationRouteError)
        -> [Route]
    {
        try navigationStack.navigationPath(as: type)
    }
}

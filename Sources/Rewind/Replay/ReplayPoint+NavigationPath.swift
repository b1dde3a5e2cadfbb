import RewindMachine

extension ReplayPoint {
    /// The navigation stack at this point above its root decoded as the app's route type, bottom
    /// first (see ``ScreenStack/navigationPath(as:)``): the path the app showed then.
    ///
    /// - Throws: ``NavigationRouteError`` naming the first entry (index, screen) that does not
    ///   decode.
    public func navigationPath<Route: Decodable>(as type: Route.Type = Route.self) throws(NavigationRouteError)
        -> [Route]
    {
        try navigation.navigationPath(as: type)
    }
}

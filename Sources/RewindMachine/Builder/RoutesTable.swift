/// One route of a flat routes table: in state `from`, event `event` moves to `to` (the
/// routes-table seed's `Path(from:to:by:)`).
public struct Route: Hashable, Sendable {
    /// The source state.
    public var from: String
    /// The target state.
    public var to: String
    /// The event that takes the route.
    public var event: String

    /// Creates a route.
    public init(from: String, to: String, by event: String) {
        self.from = from
        self.to = to
        self.event = event
    }

    /// Creates a route with typed names (`enum Screen: String`, `enum Event: String`).
    public init<S: RawRepresentable<String>, E: RawRepresentable<String>>(from: S, to: S, by event: E) {
        self.init(from: from.rawValue, to: to.rawValue, by: event.rawValue)
    }
}

extension MachineDefinition {
    /// A flat machine from a routes table: one atomic state per state named in `routes` (in order of
    /// first appearance, `initial` first), one transition per route. An event with no route from
    /// the current state is an error (``MachineError/invalidTransition(from:event:)``).
    ///
    /// - Parameters:
    ///   - name: The machine's name.
    ///   - initial: The initial state.
    ///   - routes: The routes, as the seed's `Path(from:to:by:)` list.
    ///   - navigation: What entering each state does to the navigation stack.
    public init(
        name: String, initial: String, routes: [Route], navigation: [String: NavigationDeclaration] = [:]
    ) {
        var order = [initial]
        for route in routes {
            if !order.contains(route.from) { order.append(route.from) }
            if !order.contains(route.to) { order.append(route.to) }
        }
        let states = order.map { id in
            StateDefinition(
                id: id,
                transitions: routes.filter { $0.from == id }.map {
                    TransitionDefinition(events: [$0.event], targets: [$0.to])
                },
                navigation: navigation[id])
        }
        self.init(name: name, initial: [initial], states: states)
    }

    /// A flat machine from a `[State: [Event: State]]` dictionary. States and events are ordered by
    /// their raw values (dictionaries have no order), the initial state first.
    public init<S: RawRepresentable<String> & Hashable, E: RawRepresentable<String> & Hashable>(
        name: String, initial: S, table: [S: [E: S]], navigation: [S: NavigationDeclaration] = [:]
    ) {
        let routes = table.sorted { $0.key.rawValue < $1.key.rawValue }.flatMap { from, edges in
            edges.sorted { $0.key.rawValue < $1.key.rawValue }.map { event, to in
                Route(from: from, to: to, by: event)
            }
        }
        self.init(
            name: name, initial: initial.rawValue, routes: routes,
            navigation: Dictionary(uniqueKeysWithValues: navigation.map { ($0.key.rawValue, $0.value) }))
    }
}

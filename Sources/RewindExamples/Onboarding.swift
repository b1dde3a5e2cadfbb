import RewindMachine

extension ExampleMachines {
    /// The routes-table seed: a flat onboarding flow initial → greeting → login → home, driven by
    /// the events launch, start, loggedIn. Any other event is an invalid transition.
    ///
    /// ```swift
    /// let machine = try ExampleMachines.Onboarding.machine()
    /// var state = try machine.start().state                            // initial
    /// state = try machine.send(Event(Onboarding.Event.launch), in: state).state  // greeting
    /// ```
    public enum Onboarding {
        /// The screens (states).
        public enum Screen: String, CaseIterable, Sendable {
            /// Before launch.
            case initial
            /// The welcome screen.
            case greeting
            /// The login screen.
            case login
            /// The app's home.
            case home
        }

        /// The events.
        public enum Event: String, CaseIterable, Sendable {
            /// The app launched.
            case launch
            /// The user tapped start.
            case start
            /// The user logged in.
            case loggedIn
        }

        /// The routes, as the seed's `Path(from:to:by:)` list.
        public static let routes: [Route] = [
            Route(from: Screen.initial, to: .greeting, by: Event.launch),
            Route(from: Screen.greeting, to: .login, by: Event.start),
            Route(from: Screen.login, to: .home, by: Event.loggedIn),
        ]

        /// Screens replace each other: greeting and home become the root, login is pushed.
        public static let navigation: [Screen: NavigationDeclaration] = [
            .greeting: .setRoot(), .login: .push(), .home: .setRoot(),
        ]

        /// The same routes as a `[State: [Event: State]]` table, as a plain dictionary machine has.
        public static let table: [Screen: [Event: Screen]] = [
            .initial: [.launch: .greeting],
            .greeting: [.start: .login],
            .login: [.loggedIn: .home],
        ]

        /// The definition built from ``routes``.
        public static var definition: MachineDefinition {
            MachineDefinition(
                name: "onboarding", initial: Screen.initial.rawValue, routes: routes,
                navigation: Dictionary(uniqueKeysWithValues: navigation.map { ($0.key.rawValue, $0.value) }))
        }

        /// The definition built from the dictionary ``table``.
        public static var tableDefinition: MachineDefinition {
            MachineDefinition(name: "onboarding", initial: Screen.initial, table: table, navigation: navigation)
        }

        /// The compiled machine.
        public static func machine() throws -> Machine {
            try Machine(definition)
        }
    }
}

/// A step read from a machine's table of precomputed outcomes by
/// ``Machine/sendFromTable(_:in:)``: what a recorder needs besides the new state, with every array
/// shared with the table (nothing is built).
///
/// The ``Step`` that ``Machine/send(_:in:now:)-(Event,_,_)`` returns for the same event and state is
/// `Step(event: event, source: source, target: state.configuration, microsteps: microsteps,
/// state: state)`, with `state` the state after the call.
package struct TableStep: Hashable, Sendable {
    /// The full active configuration before the step (the state's own array, taken over).
    public var source: [String]
    /// The microsteps taken, in order; empty for an ignored event (nothing changed).
    public var microsteps: [Microstep]
    /// The navigation operations of the whole macrostep, in order (as ``Step/navigation``).
    public var navigation: [NavigationOperation]

    /// Creates a table step from its parts.
    public init(source: [String], microsteps: [Microstep], navigation: [NavigationOperation]) {
        self.source = source
        self.microsteps = microsteps
        self.navigation = navigation
    }

    /// The ``Step`` of `event`, which reached `state` (as ``Machine/send(_:in:now:)-(Event,_,_)``
    /// returns it).
    public func step(of event: Event, reaching state: MachineState) -> Step {
        Step(event: event, source: source, target: state.configuration, microsteps: microsteps, state: state)
    }
}

@testable import RewindMachine

/// Starts `machine` then sends each event in turn, returning the final state.
func run(_ machine: Machine, _ events: String...) throws -> MachineState {
    var state = try machine.start().state
    for event in events { state = try machine.send(event, in: state).state }
    return state
}

/// The atomic active states of `state`.
func leaves(_ machine: Machine, _ state: MachineState) -> Set<String> {
    Set(machine.atomicStates(of: state.configuration))
}

import RewindExamples
import Testing

@testable import RewindMachine

struct OnboardingTests {
    typealias Screen = ExampleMachines.Onboarding.Screen
    typealias Event = ExampleMachines.Onboarding.Event

    @Test func launchStartLoggedInWalksToHome() throws {
        let machine = try ExampleMachines.Onboarding.machine()
        var state = try machine.start().state
        #expect(state.configuration == [Screen.initial.rawValue])
        for (event, screen) in [(Event.launch, Screen.greeting), (.start, .login), (.loggedIn, .home)] {
            state = try machine.send(RewindMachine.Event(event), in: state).state
            #expect(state.isActive(screen))
        }
        #expect(machine.warnings.isEmpty)
    }

    @Test func everyEventOutsideTheRouteIsRejected() throws {
        let machine = try ExampleMachines.Onboarding.machine()
        var state = try machine.start().state
        let route: [Event] = [.launch, .start, .loggedIn]
        for expected in route {
            for event in Event.allCases where event != expected {
                #expect(throws: MachineError.invalidTransition(from: state.configuration, event: event.rawValue)) {
                    try machine.send(RewindMachine.Event(event), in: state)
                }
            }
            state = try machine.send(RewindMachine.Event(expected), in: state).state
        }
        // Home has no routes at all.
        for event in Event.allCases {
            #expect(throws: MachineError.self) { try machine.send(RewindMachine.Event(event), in: state) }
        }
    }
}

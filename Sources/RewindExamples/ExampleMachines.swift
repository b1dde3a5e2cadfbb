import RewindMachine

/// The seeds' machines, ready to use (the `RewindExamples` product): by the tests, the CLI's demo
/// and the fuzzer, and as samples for an app.
///
/// Each example is a namespace with its typed names (`Screen`, `Event`), its ``MachineDefinition``
/// and a compiled ``Machine``:
/// - ``Onboarding``: the routes-table seed, initial → greeting → login → home.
/// - ``Map``: the GKStateMachine map demo, start / preview / navigation with valid next states.
/// - ``Kanji``: GKStateMachine navigation, all / detail(kanji) / list(word); all pops to root.
/// - ``StateKit``: the StateKit chart, root with loading / regularView / errorView and retry.
/// - ``LoadingView``: StateViewController's loading / ready(model) / error.
/// - ``Browser``: deep history (leave a nested screen, come back to it).
/// - ``Upload``: parallel regions, final states and `done.state.<id>`.
public enum ExampleMachines {}

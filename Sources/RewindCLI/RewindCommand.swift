import ArgumentParser
import Rewind

/// `rewind`: the demo, inspection and time travel of Rewind stores in a terminal.
@main
struct RewindCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rewind",
        abstract: "Durable, replayable screen flows: run the demo, inspect sessions, travel in time.",
        discussion: """
            Every command takes --store PATH (default: ./\(StoreOptions.defaultDirectory), the demo \
            store) and --json for machine-readable output.
            """,
        subcommands: [
            Demo.self, Sessions.self, History.self, State.self, Diff.self, Replay.self, Verify.self,
            Export.self, Import.self, Fork.self, Graph.self, Projections.self, Stats.self, Bench.self,
        ]
    )
}

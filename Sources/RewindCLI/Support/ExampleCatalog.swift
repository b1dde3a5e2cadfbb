import Foundation
import Rewind
import RewindExamples

/// The example machines the command line knows by name, registered on every engine it opens, and
/// the machines of a store it can rebuild from their stored definitions.
enum ExampleCatalog {
    /// The example machines by name.
    static func machines() throws -> [String: Machine] {
        let all = [
            try ExampleMachines.Onboarding.machine(), try ExampleMachines.Map.machine(),
            try ExampleMachines.Kanji.machine(), try ExampleMachines.StateKit.machine(),
            try ExampleMachines.LoadingView.machine(), try ExampleMachines.Browser.machine(),
            try ExampleMachines.Upload.machine(),
        ]
        return Dictionary(uniqueKeysWithValues: all.map { ($0.definition.name, $0) })
    }

    /// The machine names a command accepts: the examples' and those of the store's sessions.
    static func knownMachineNames(in engine: Engine?) -> [String] {
        var names = Set((try? machines().keys).map(Array.init) ?? [])
        if let engine {
            _ = try? engine.store.read { transaction in
                try transaction.forEachSession { info in
                    names.insert(info.machine)
                    return .next
                }
            }
        }
        return names.sorted()
    }

    /// Opens (creating) the store in `directory` with every example machine and the built-in
    /// projections (screen flows, navigation stacks) registered; the projections run inline.
    /// With `readOnly` the existing store is opened read-only: nothing is created or written.
    /// Every command checks the data file's pages before LMDB reads them (a damaged page is a
    /// `DamagedPageError`, not a crash), and none makes an emptied data file a new store.
    ///
    /// - Throws: the engine's errors; ``CLIError/fileSystem(_:operation:reason:)`` when the file
    ///   system refuses the directory (it cannot be created, permission denied).
    static func engine(directory: String, durability: Durability = .durable, readOnly: Bool = false) throws -> Engine {
        var configuration = EngineConfiguration(durability: durability)
        configuration.readOnly = readOnly
        configuration.checksPages = true
        configuration.store.environment.options.insert(.refuseBlankDataFile)
        configuration.projections = [ScreenFlowProjection(), NavigationProjection()]
        let engine: Engine
        do {
            engine = try Engine(directory: directory, configuration: configuration)
        } catch  where FileProblem.isFileSystemError(error) {
            throw CLIError.fileSystem(
                directory, operation: readOnly ? "open the store" : "open or create the store",
                reason: FileProblem.reason(for: error))
        }
        for machine in try machines().values {
            try engine.register(machine)
        }
        return engine
    }

    /// The definition of machine `name` that `record` ran under: stored in the store, else the
    /// example of that name.
    static func definition(named name: String, version: String, in engine: Engine) throws -> MachineDefinition? {
        if let stored = try engine.storedDefinition(name: name, version: version) { return stored }
        return try machines()[name]?.definition
    }
}

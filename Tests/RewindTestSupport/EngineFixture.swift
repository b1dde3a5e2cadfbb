import Rewind
import RewindBaseTestSupport

/// A temporary store directory and the engines opened on it.
public final class EngineFixture: Sendable {
    /// The store's directory.
    public let directory: TemporaryDirectory
    /// The snapshot interval of the engines opened by ``open(registering:durability:)``.
    public let snapshotInterval: UInt64

    /// Creates an empty store directory.
    public init(snapshotInterval: UInt64 = 64) throws {
        directory = try TemporaryDirectory(prefix: "rewind-engine")
        self.snapshotInterval = snapshotInterval
    }

    /// Opens an engine on the directory with `machines` registered (by their definition names).
    public func open(registering machines: [Machine], durability: Durability = .noSync) throws -> Engine {
        try open(registering: machines) { $0.durability = durability }
    }

    /// Opens an engine on the directory with `machines` registered, its configuration (durable by
    /// default, the fixture's snapshot interval) changed by `configure` first.
    public func open(registering machines: [Machine], configure: (inout EngineConfiguration) -> Void) throws -> Engine {
        var configuration = EngineConfiguration(snapshotInterval: snapshotInterval)
        configure(&configuration)
        let engine = try Engine(directory: directory.path, configuration: configuration)
        for machine in machines { try engine.register(machine) }
        return engine
    }

    /// Removes the directory (close the engines first).
    public func remove() {
        directory.remove()
    }
}

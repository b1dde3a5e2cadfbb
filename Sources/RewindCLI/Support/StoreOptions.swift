import ArgumentParser
import Foundation
import Rewind

/// `--store PATH`: which store a command works on.
struct StoreOptions: ParsableArguments {
    /// The demo's store, under the current directory.
    static let defaultDirectory = "rewind-store"

    @Option(name: .long, help: "The store's directory.")
    var store: String = StoreOptions.defaultDirectory

    /// Opens the existing store with the example machines registered.
    ///
    /// - Throws: ``CLIError/noStore(_:)`` when the directory does not exist, and the store's
    ///   errors (not a store, newer format) otherwise.
    func openEngine(durability: Durability = .durable) throws -> Engine {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: store, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIError.noStore(store)
        }
        return try ExampleCatalog.engine(directory: store, durability: durability)
    }
}

/// `--json`: machine-readable output.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print machine-readable JSON instead of text.")
    var json = false
}

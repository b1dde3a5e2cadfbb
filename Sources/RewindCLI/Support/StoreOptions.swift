import ArgumentParser
import Foundation
import Rewind

/// `--store PATH`: which store a command works on.
struct StoreOptions: ParsableArguments {
    /// The demo's store, under the current directory.
    static let defaultDirectory = "rewind-store"

    @Option(name: .long, help: "The store's directory.")
    var store: String = StoreOptions.defaultDirectory

    /// Opens the existing store with the example machines registered: read-only unless `writing`
    /// (a read command neither creates nor changes a store, and reads one on read-only media);
    /// with `creating`, creates it first when the directory is missing or empty
    /// (`rewind import --create`).
    ///
    /// Without `creating`, a missing directory, a file, and an empty directory (or one holding only
    /// LMDB's lock file) are no store and are left as they are: a mistyped `--store` is reported,
    /// not made into a new store.
    /// - Throws: ``CLIError/storeIsAFile(_:)`` when `--store` names a file,
    ///   ``CLIError/noStore(_:)`` when there is no store to open, and the store's errors (not a
    ///   store, newer format) otherwise.
    ///
    /// `checkingFirst` runs, when there is a store, on it opened read-only before it is opened for
    /// writing: a command whose checks fail there (an unknown session, a taken id) throws before
    /// the writable open, which writes even when the command then writes nothing (metadata,
    /// definitions, projections caught up), so a failed command leaves the store's files as they
    /// were. A store that must be migrated before it can be read skips them (the migration is a
    /// write the command needs anyway); the command checks again on the writable engine.
    func openEngine(
        durability: Durability = .durable, writing: Bool = false, creating: Bool = false,
        checkingFirst check: ((Engine) throws -> Void)? = nil
    ) throws -> Engine {
        if namesAFile { throw CLIError.storeIsAFile(store) }
        if !creating, namesNoStore { throw CLIError.noStore(store) }
        if let check, !namesNoStore {
            do {
                let reader = try ExampleCatalog.engine(directory: store, durability: durability, readOnly: true)
                defer { reader.close() }
                try check(reader)
            } catch StoreError.needsWriteAccess {
                // An older format: checked after the writable open has migrated it.
            }
        }
        return try ExampleCatalog.engine(directory: store, durability: durability, readOnly: !writing && !creating)
    }

    /// Refuses an empty `--store` (a usage error): it names no directory.
    func validate() throws {
        if store.isEmpty {
            throw ValidationError("--store needs a directory, not an empty path (default: ./\(Self.defaultDirectory))")
        }
    }

    /// Whether `--store` names something that exists and is not a directory (a file).
    var namesAFile: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: store, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    /// Whether `--store` names no store: a missing path, a file, or an empty directory (or one
    /// holding only LMDB's lock file). A directory of other files is not "no store": it is left to
    /// the store, which says it is not a store.
    var namesNoStore: Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: store, isDirectory: &isDirectory), isDirectory.boolValue else {
            return true
        }
        guard let contents = try? FileManager.default.contentsOfDirectory(atPath: store) else { return false }
        return contents.isEmpty || contents == ["lock.mdb"]
    }
}

/// `--json`: machine-readable output.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print machine-readable JSON instead of text.")
    var json = false
}

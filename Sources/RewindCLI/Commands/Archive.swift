import ArgumentParser
import Foundation
import Rewind

/// `rewind export SESSION -o FILE`: a session and its machine definition as a self-contained file.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a session (records and machine definition) to a self-contained NDJSON file.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "The session id.")
    var session: String

    @Option(name: [.customShort("o"), .customLong("output")], help: "The file to write; - writes to standard output.")
    var file: String

    func run() async throws {
        let toStandardOutput = file == "-"
        if toStandardOutput, output.json {
            throw CLIError.usage("--json conflicts with -o -: standard output carries the archive")
        }
        let engine = try storeOptions.openEngine()
        defer { engine.close() }
        let info = try engine.existingSession(session)
        let archive = try engine.exportSession(info.session)
        let summary = "exported \(info.session.shown) (\(records(info.recordCount)))"
        if toStandardOutput {
            FileHandle.standardOutput.write(archive)
            FileHandle.standardError.write(Data("\(summary) to standard output\n".utf8))
            return
        }
        try write(archive, to: file)
        if output.json {
            try Terminal.printJSON(
                ArchiveReport(
                    session: info.session.rawValue, machine: info.machine, records: info.recordCount, file: file))
        } else {
            print("\(summary) to \(file)")
        }
    }

    /// Writes `archive` to `path` atomically.
    ///
    /// - Throws: ``CLIError/unwritableFile(_:reason:)`` saying why (``FileProblem/write(_:to:hint:)``).
    private func write(_ archive: Data, to path: String) throws {
        try FileProblem.write(
            archive, to: path,
            hint:
                "give a file path such as \(path.hasSuffix("/") ? path : path + "/")\(View.fileName(for: session, extension: "rewind")), or - for standard output"
        )
    }
}

/// `rewind import FILE`: a session exported by `rewind export`, checked line by line first.
///
/// With `--create` the file is read and checked before the store is opened, so an import that is
/// refused (a missing, truncated or tampered file, a bad `--as` id) creates no store: a missing or
/// empty directory is left as it was. Without it, a missing store is reported before the file.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: """
            Import a session file written by `rewind export`; a truncated or tampered file imports \
            nothing (and with --create creates no store).
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "The file to import; - reads standard input.")
    var file: String

    @Option(name: .customLong("as"), help: "Import under this session id (default: the exported one).")
    var newID: String?

    @Flag(help: "Create the store when --store names none (a missing or empty directory), once the file is checked.")
    var create = false

    func run() async throws {
        // The store first (missing, not a store, damaged: opened read-only), then the archive and
        // whether its session id is free, all before the store is opened for writing; with --create
        // and no store yet, the archive before the store is created. A refused import leaves the
        // store's files as they were.
        if storeOptions.namesAFile { throw CLIError.storeIsAFile(storeOptions.store) }
        if !create, storeOptions.namesNoStore { throw CLIError.noStore(storeOptions.store) }
        let id = try newID.map { try SessionID(new: $0) }
        func checkedArchive() throws -> (data: Data, session: SessionID) {
            let data = try readFile()
            return (data, try SessionArchive.validate(data, as: id))
        }
        var archive = storeOptions.namesNoStore ? try checkedArchive() : nil
        let engine = try storeOptions.openEngine(writing: true, creating: create) { reader in
            let checked = try checkedArchive()
            archive = checked
            if try reader.store.sessionInfo(for: checked.session) != nil {
                throw CLIError.sessionExists(checked.session.rawValue, command: "import")
            }
        }
        defer { engine.close() }
        let data = try archive?.data ?? readFile()
        let info = try await Self.importing { try await engine.importSession(data, as: id) }
        if output.json {
            try Terminal.printJSON(
                ArchiveReport(session: info.session.rawValue, machine: info.machine, records: info.recordCount))
        } else {
            print("imported \(info.session.shown) (\(info.machine.shown), \(records(info.recordCount)))")
        }
    }

    /// Runs the import, saying which flag to use when the session id is taken.
    private static func importing(_ body: () async throws -> SessionInfo) async throws -> SessionInfo {
        do {
            return try await body()
        } catch EngineError.sessionExists(let id) {
            throw CLIError.sessionExists(id.rawValue, command: "import")
        }
    }

    /// The bytes of `file`.
    ///
    /// - Throws: ``CLIError/unreadableFile(_:reason:)`` when it is missing or unreadable.
    private func readFile() throws -> Data {
        do {
            // `-`: standard input, read the same way (with the same line limit) as a file.
            return try SessionArchive.read(from: URL(fileURLWithPath: file == "-" ? "/dev/stdin" : file))
        } catch let error as SessionArchiveError {
            throw error
        } catch {
            throw CLIError.unreadableFile(file, reason: "it does not exist or is not readable")
        }
    }
}

/// `rewind fork SESSION --at VERSION`: a new session branching from a past point.
struct Fork: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start a new session from a version of an existing one; the original is untouched.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "The session to fork.")
    var session: String

    @Option(parsing: .unconditional, help: "The version to fork at.")
    var at: String

    @Option(name: .customLong("as"), help: "The new session's id (default: SESSION-fork-VERSION).")
    var newID: String?

    func run() async throws {
        // The session, the version and the new id are checked on the store opened read-only
        // first: a refused fork leaves the store's files as they were.
        let engine = try storeOptions.openEngine(writing: true) { reader in
            let id = try target(in: reader).id
            if try reader.store.sessionInfo(for: id) != nil {
                throw CLIError.sessionExists(id.rawValue, command: "fork")
            }
        }
        defer { engine.close() }
        let (info, version, id) = try target(in: engine)
        let fork: SessionInfo
        do {
            fork = try await engine.fork(info.session, at: version, as: id)
        } catch EngineError.sessionExists(let taken) {
            throw CLIError.sessionExists(taken.rawValue, command: "fork")
        }
        if output.json {
            try Terminal.printJSON(
                ForkReport(
                    session: fork.session.rawValue, origin: "\(info.session)@\(version)", version: fork.headVersion))
        } else {
            print("forked \(info.session.shown) at version \(version) as \(fork.session.shown)")
        }
    }
}

extension Fork {
    /// The session to fork, the version and the new session's id, checked against `engine`.
    private func target(in engine: Engine) throws -> (info: SessionInfo, version: UInt64, id: SessionID) {
        let info = try engine.existingSession(session)
        let version = try parseVersion(at, head: info.headVersion)
        return (info, version, try SessionID(new: newID ?? "\(info.session)-fork-\(version)"))
    }
}

/// What `export --json` and `import --json` print.
struct ArchiveReport: Encodable {
    var session: String
    var machine: String
    var records: UInt64
    var file: String?
}

/// "1 record", "2 records".
func records(_ count: UInt64) -> String {
    count == 1 ? "1 record" : "\(count) records"
}

/// What `fork --json` prints.
struct ForkReport: Encodable {
    var session: String
    var origin: String
    var version: UInt64
}

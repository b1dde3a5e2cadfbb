import ArgumentParser
import Foundation
import Rewind
import RewindSync

/// `rewind push`: upload the store's log to a fleet server, as an app's `Uploader` does.
struct Push: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Upload the store's records to a fleet server (rewind-server).",
        discussion: """
            Sends the records the server does not hold yet, in batches, with the machine definitions \
            they name, and keeps the server's acknowledged position in the store, as the RewindSync \
            uploader of an app does (a push after an app's uploads sends only what is left). Prints \
            a line per batch. Exits with status 2 and one line on standard error when the server \
            cannot be reached or refuses the key or a batch (nothing is half-stored: run it again).
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .long, help: "The server's base URL, e.g. http://127.0.0.1:8080.")
    var server: String

    @Option(name: .long, help: "An ingestion key of the app (rewind_ingest_...).")
    var key: String

    /// 5,000 records per batch, where an app's uploader sends 500: a push is a bulk upload, and the
    /// server's cost per batch is large (Benchmarks/HISTORY.md, "rewind push: a client that waits
    /// without spinning": 7.4 K records/s at 500, 14 K/s at 5,000). A batch also stays under the
    /// uploader's 1 MiB.
    static let defaultBatchRecords = 5_000

    @Option(name: .long, help: "The most records per batch (a batch also stays under 1 MiB).")
    var batchRecords: Int = Self.defaultBatchRecords

    struct Report: Encodable {
        var server: String
        var storeID: String
        var recordsUploaded: Int
        var recordsAlreadyHeld: Int
        var batches: Int
        var acknowledgedThrough: UInt64
        var headSequence: UInt64
    }

    func validate() throws {
        guard let url = URL(string: server), FleetHTTPClient.isServerURL(url) else {
            throw ValidationError(
                "--server must be an http or https URL, such as http://127.0.0.1:8080 (got '\(server)')")
        }
        guard batchRecords >= 1 else {
            throw ValidationError("--batch-records must be at least 1 (got \(batchRecords))")
        }
    }

    func run() async throws {
        guard let url = URL(string: server) else { throw ValidationError("--server is not a URL") }
        let engine = try storeOptions.openEngine(writing: true)
        defer { engine.close() }
        let uploader = Uploader(
            engine: engine, server: url, key: key,
            configuration: UploaderConfiguration(maximumBatchRecords: batchRecords))
        let quiet = output.json
        // One line per batch the progress shows (a slow terminal may skip to the newest).
        let printer = Task { () -> Int in
            var printed = 0
            for await progress in uploader.progressUpdates where progress.batchesUploaded > printed {
                printed = progress.batchesUploaded
                if !quiet { print(Self.line(progress)) }
            }
            return printed
        }
        let progress: UploadProgress
        do {
            progress = try await uploader.uploadNow()
        } catch let error as UploadError {
            printer.cancel()
            throw PushError(server: server, error: error)
        } catch {
            printer.cancel()
            throw error
        }
        printer.cancel()
        if await printer.value < progress.batchesUploaded, !quiet { print(Self.line(progress)) }
        if output.json {
            try Terminal.printJSON(
                Report(
                    server: server, storeID: engine.store.storeID.uuidString, recordsUploaded: progress.recordsUploaded,
                    recordsAlreadyHeld: progress.recordsAlreadyHeld, batches: progress.batchesUploaded,
                    acknowledgedThrough: progress.acknowledgedThrough, headSequence: progress.headSequence))
        } else {
            print(
                "pushed \(progress.recordsUploaded) records in \(progress.batchesUploaded) batches to \(server): "
                    + "the server holds records 1\(Glyphs.current.rangeDash)\(progress.acknowledgedThrough) of store \(engine.store.storeID.uuidString)"
            )
        }
    }

    /// The line of a batch.
    static func line(_ progress: UploadProgress) -> String {
        "batch \(progress.batchesUploaded): the server holds \(progress.acknowledgedThrough)/\(progress.headSequence) records "
            + "(\(progress.recordsUploaded) uploaded now)"
    }

    /// An upload that failed: the server and what went wrong.
    struct PushError: Error, CustomStringConvertible {
        var server: String
        var error: UploadError
        var description: String { "push to \(server) failed: \(error)" }
    }
}

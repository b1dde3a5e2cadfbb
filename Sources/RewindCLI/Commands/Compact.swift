import ArgumentParser
import Foundation
import Rewind

/// `rewind compact`: rewrite the store into a compact copy and replace it atomically.
struct Compact: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rewrite the store into a compact copy and replace its data file atomically.",
        discussion: """
            Copies the pages in use (LMDB's compacting copy) into a file beside data.mdb, flushes \
            it and renames it over data.mdb: the data file shrinks to what is in use plus the \
            store's headroom (4 MiB). Prints the data file's length before and after. Refuses \
            (status 2) while another process has the store open; a process opening it meanwhile \
            waits. Killed at any moment, it leaves the old store or the new one, whole.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    struct Report: Encodable {
        var store: String
        var bytesBefore: Int
        var bytesAfter: Int
        var liveBytes: Int
        var mapBytes: Int
    }

    func run() async throws {
        // A store of the current format, read-only (nothing written: a refused compaction
        // leaves the files as they were); then compacted without an engine open on it.
        let path: String
        do {
            let engine = try storeOptions.openEngine()
            path = engine.store.path
            engine.close()
        }
        let result = try Engine.compact(directory: path)
        let report = Report(
            store: path, bytesBefore: result.bytesBefore, bytesAfter: result.bytesAfter,
            liveBytes: result.liveBytes, mapBytes: result.mapSize)
        if output.json {
            try Terminal.printJSON(report)
        } else {
            print(
                "\(report.store.shown): data file \(Stats.bytes(UInt64(report.bytesBefore))) before, "
                    + "\(Stats.bytes(UInt64(report.bytesAfter))) after (\(Stats.bytes(UInt64(report.liveBytes))) in use, "
                    + "map \(Stats.bytes(UInt64(report.mapBytes))))")
        }
    }
}

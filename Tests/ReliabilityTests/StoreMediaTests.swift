import Foundation
import Rewind
import RewindTestSupport
import Testing

/// The command line on a full disk and on read-only media: a full disk is said to be full, the
/// store stays consistent and `stats` reports the space the data file takes; a store on a
/// read-only file system can be inspected.
struct StoreMediaTests {
    private static func rewind(_ arguments: [String]) async throws -> ProcessOutput {
        let executable = try #require(
            BuiltProduct.url(named: "rewind"), "build the tool with `swift build --build-tests`")
        return try await runProcess(executable, arguments: arguments)
    }

    struct Stats: Decodable {
        var records: UInt64
        var fileBytes: UInt64
        var allocatedBytes: UInt64
    }

    @Test func aFullDiskIsSaidToBeFullAndStatsReportsTheSpaceTaken() async throws {
        let filesystem: SmallFilesystem
        switch try SmallFilesystem.mount(megabytes: 3) {
        case .success(let mounted): filesystem = mounted
        case .failure(let reason):
            print("full disk CLI test skipped: \(reason)")
            return
        }
        defer { filesystem.unmount() }
        let store = filesystem.path + "/store"
        // More sessions than 3 MiB hold (about 4 MiB of records).
        let demo = try await Self.rewind(["demo", "--sessions", "3000", "--store", store])
        #expect(demo.status == 2, "\(demo)")
        #expect(demo.stderr.contains("the disk is full"), "\(demo.stderr)")
        #expect(!demo.terminatedBySignal)

        let output = try await Self.rewind(["stats", "--json", "--store", store])
        #expect(output.status == 0, "\(output)")
        let stats = try JSONDecoder().decode(Stats.self, from: Data(output.stdout.utf8))
        #expect(stats.records > 0)
        // The map follows what is in use (it starts at 1 MiB and grows by steps, each reserved
        // first): the data file is as long as the last map the disk had room for, all of it
        // allocated, no more than the disk.
        #expect(stats.fileBytes <= 3 << 20 && stats.fileBytes >= 1 << 20, "\(stats)")
        #expect(stats.allocatedBytes >= stats.fileBytes && stats.allocatedBytes <= 3 << 20, "\(stats)")
        let text = try await Self.rewind(["stats", "--store", store])
        #expect(!text.stdout.contains("sparse"), "\(text.stdout)")

        // Nothing acknowledged was lost, nothing half-written is there.
        let verify = try await Self.rewind(["verify", "--store", store])
        #expect(verify.status == 0, "\(verify)")
        #expect(verify.stdout.contains(": 0 diverged"))
        let check = try await Self.rewind(["check", "--store", store])
        #expect(check.status == 0, "\(check)")
    }

    @Test func aStoreOnAReadOnlyFileSystemCanBeInspected() async throws {
        let filesystem: SmallFilesystem
        switch try SmallFilesystem.mount(megabytes: 16) {
        case .success(let mounted): filesystem = mounted
        case .failure(let reason):
            print("read-only media test skipped: \(reason)")
            return
        }
        defer { filesystem.unmount() }
        let store = filesystem.path + "/store"
        let demo = try await Self.rewind(["demo", "--sessions", "30", "--store", store])
        #expect(demo.status == 0, "\(demo)")
        let remount = try await runProcess(
            URL(fileURLWithPath: "/bin/mount"), arguments: ["-o", "remount,ro", filesystem.path])
        #expect(remount.status == 0, "\(remount)")
        for command in [["stats"], ["sessions"], ["history", "kanji-3"], ["verify"], ["check"], ["projections"]] {
            let output = try await Self.rewind(command + ["--store", store])
            #expect(output.status == 0, "\(command): \(output)")
        }
        let write = try await Self.rewind(["demo", "--sessions", "1", "--store", store])
        #expect(write.status == 2, "\(write)")
        #expect(write.stderr.contains("Read-only file system"), "\(write.stderr)")
    }
}

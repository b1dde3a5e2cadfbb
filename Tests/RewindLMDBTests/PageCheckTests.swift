import Foundation
import Testing

@testable import RewindLMDB

/// `EnvironmentOptions.checkPages`: every page LMDB could read is checked before it opens the
/// file, so a damaged one is a typed error naming it instead of a crash;
/// `EnvironmentOptions.refuseBlankDataFile` keeps an emptied data file empty.
@Suite("Page check")
struct PageCheckTests {
    /// An environment whose named database spans branch and leaf pages; closed.
    private func filledEnvironment() throws -> TestDirectory {
        try TestDirectory.filledEnvironment("pagecheck")
    }

    /// Writes 64 bytes of 0xff at `offset` of page `page` of the data file.
    private func damage(_ directory: TestDirectory, page: UInt64, at offset: Int) throws {
        let handle = try #require(FileHandle(forWritingAtPath: directory.path + "/data.mdb"))
        try handle.seek(toOffset: page * 4096 + UInt64(offset))
        handle.write(Data(repeating: 0xff, count: 64))
        try handle.close()
    }

    @Test func anIntactEnvironmentOpensAndItsPagesInUseAreFound() throws {
        let directory = try filledEnvironment()
        defer { directory.remove() }
        let inUse = try PageCheck.check(directory: directory.path)
        #expect(inUse.count > 10)
        #expect(inUse.isSuperset(of: [0, 1]))
        for options: EnvironmentOptions in [[.checkPages], [.checkPages, .readOnly]] {
            let env = try Environment(
                directory: directory.path, configuration: EnvironmentConfiguration(options: options))
            env.close()
        }
    }

    /// Every page in use with its node offsets damaged (right after its header) is named, with
    /// its database, for writable and read-only opens alike, and nothing is written.
    @Test func everyDamagedPageInUseIsNamedBeforeLMDBReadsIt() throws {
        let pristine = try filledEnvironment()
        defer { pristine.remove() }
        let pages = try PageCheck.check(directory: pristine.path).filter { $0 >= 2 }.sorted()
        let original = try Data(contentsOf: URL(fileURLWithPath: pristine.path + "/data.mdb"))
        for page in pages {
            let directory = try TestDirectory("pagecheck-copy")
            defer { directory.remove() }
            try original.write(to: URL(fileURLWithPath: directory.path + "/data.mdb"))
            try damage(directory, page: page, at: 16)
            let damaged = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/data.mdb"))
            for options: EnvironmentOptions in [[.checkPages], [.checkPages, .readOnly]] {
                do {
                    let env = try Environment(
                        directory: directory.path, configuration: EnvironmentConfiguration(options: options))
                    env.close()
                    Issue.record("page \(page): opened with \(options)")
                } catch let error as DamagedPageError {
                    #expect(error.page == page, "\(error)")
                    #expect(["things", "main", "free"].contains(error.database), "\(error)")
                    #expect(error.description.contains("page \(page) (database '\(error.database)')"))
                }
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/data.mdb")) == damaged)
        }
    }

    @Test func anEmptyDataFileIsRefusedByAWritableOpenThatAsksSo() throws {
        let directory = try TestDirectory("pagecheck-empty")
        defer { directory.remove() }
        try Data().write(to: URL(fileURLWithPath: directory.path + "/data.mdb"))
        #expect(throws: DataFileError.self) {
            try Environment(
                directory: directory.path, configuration: EnvironmentConfiguration(options: [.refuseBlankDataFile]))
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.path + "/data.mdb")
        #expect((attributes[.size] as? NSNumber)?.intValue == 0)
    }
}

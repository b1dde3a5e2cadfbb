import Foundation
import Testing
@testable import RewindLMDB

/// The data file is checked against LMDB's meta pages before anything maps it: a truncated copy
/// is a typed error naming the file and both sizes, not a `SIGBUS`.
@Suite("Data file check")
struct DataFileCheckTests {
    /// An environment with enough pages that a truncation cuts some of them off; closed.
    private func filledEnvironment(options: EnvironmentOptions = []) throws -> TestDirectory {
        let directory = try TestDirectory("datafile")
        let env = try Environment(directory: directory.path, configuration: EnvironmentConfiguration(options: options))
        let db = try env.database(named: "things")
        try env.write { txn in
            for n in 0..<2_000 as Range<UInt64> {
                try txn.put([UInt8](repeating: UInt8(truncatingIfNeeded: n), count: 300), forKey: n.key, in: db)
            }
        }
        env.close()
        return directory
    }

    private func truncate(_ directory: TestDirectory, to size: Int) throws {
        let handle = try #require(FileHandle(forWritingAtPath: directory.path + "/data.mdb"))
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
    }

    private func fileSize(_ directory: TestDirectory) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.path + "/data.mdb")
        return (attributes[.size] as? NSNumber)?.intValue ?? -1
    }

    @Test(arguments: [8192, 200_000])
    func aTruncatedDataFileIsATypedErrorNamingTheFileAndTheSizes(size: Int) throws {
        let directory = try filledEnvironment()
        defer { directory.remove() }
        #expect(try fileSize(directory) > 200_000)
        try truncate(directory, to: size)
        for options in [EnvironmentOptions(), [.writeMap], [.readOnly]] {
            let error = #expect(throws: DataFileError.self) {
                _ = try Environment(directory: directory.path, configuration: EnvironmentConfiguration(options: options))
            }
            #expect(error?.path.hasSuffix("/data.mdb") == true)
            #expect(error?.found == "\(size) bytes: the file is truncated")
            #expect(error?.expected.hasPrefix("at least ") == true)
            #expect(error?.description.contains("damaged data file") == true)
            // Nothing grew it (no map reservation before the check).
            #expect(try fileSize(directory) == size)
        }
    }

    @Test func aHealthyEnvironmentWithAReservedWritableMapOpens() throws {
        let directory = try filledEnvironment(options: [.writeMap])
        defer { directory.remove() }
        for options in [EnvironmentOptions(), [.writeMap], [.readOnly]] {
            let env = try Environment(directory: directory.path, configuration: EnvironmentConfiguration(options: options))
            let db = try env.database(named: "things", create: false)
            #expect(try env.read { try $0.get(UInt64(1999).key, in: db) }?.count == 300)
            env.close()
        }
    }

    @Test func aDataFileThatIsNotLMDBsIsATypedError() throws {
        let directory = try filledEnvironment()
        defer { directory.remove() }
        let handle = try #require(FileHandle(forWritingAtPath: directory.path + "/data.mdb"))
        try handle.seek(toOffset: 16)
        try handle.write(contentsOf: Data("nope".utf8))
        try handle.close()
        let error = #expect(throws: DataFileError.self) { _ = try Environment(directory: directory.path) }
        #expect(error?.expected.contains("magic 0xBEEFC0DE") == true)
        #expect(error?.found.contains("magic 0x") == true)
    }

    @Test func anEmptyDataFileIsRefusedReadOnlyAndLeftEmpty() throws {
        let directory = try TestDirectory("datafile")
        defer { directory.remove() }
        #expect(FileManager.default.createFile(atPath: directory.path + "/data.mdb", contents: Data()))
        let error = #expect(throws: DataFileError.self) {
            _ = try Environment(directory: directory.path, configuration: EnvironmentConfiguration(options: [.readOnly]))
        }
        #expect(error?.found.contains("empty") == true)
        #expect(try fileSize(directory) == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["data.mdb"])
    }

    @Test func aReadOnlyOpenCreatesNothingAndRefusesWrites() throws {
        let directory = try filledEnvironment()
        defer { directory.remove() }
        try FileManager.default.removeItem(atPath: directory.path + "/lock.mdb")
        let before = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/data.mdb"))
        let env = try Environment(directory: directory.path, configuration: EnvironmentConfiguration(options: [.readOnly]))
        let db = try env.database(named: "things", create: false)
        #expect(try env.read { try $0.get(UInt64(7).key, in: db) }?.first == 7)
        let error = #expect(throws: LMDBError.self) {
            try env.write { txn in try txn.put([1], forKey: [1], in: db) }
        }
        #expect(error?.code == LMDBError.Code.readOnly)
        env.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["data.mdb"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/data.mdb")) == before)
        // Nothing to open read-only in an empty directory: it stays empty.
        let empty = try TestDirectory("datafile")
        defer { empty.remove() }
        #expect(throws: DataFileError.self) {
            _ = try Environment(directory: empty.path, configuration: EnvironmentConfiguration(options: [.readOnly]))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty.path).isEmpty)
    }
}

import Foundation
import RewindLMDB

/// A fresh, empty directory under the temporary directory, removed by `remove()`.
struct TestDirectory {
    let path: String

    init(_ name: String = "lmdb") throws {
        path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("rewind-\(name)-\(UUID().uuidString)", isDirectory: true).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

extension UInt64 {
    /// The 8-byte big-endian key of this number.
    var key: [UInt8] { withUnsafeBytes(of: bigEndian) { Array($0) } }
}

extension TestDirectory {
    /// A new directory holding an environment (opened with `options`) whose database `things`
    /// holds 2,000 values of 300 bytes: branch, leaf and free pages; closed.
    static func filledEnvironment(_ name: String, options: EnvironmentOptions = []) throws -> TestDirectory {
        let directory = try TestDirectory(name)
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
}

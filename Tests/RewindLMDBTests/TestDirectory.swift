import Foundation

/// A fresh, empty directory under the temporary directory, removed by `remove()`.
struct TestDirectory {
    let path: String

    init(_ name: String = "lmdb") throws {
        path = FileManager.default.temporaryDirectory
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

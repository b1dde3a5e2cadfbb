import Foundation

/// A fresh directory under the system's temporary directory, removed by ``remove()``.
public struct ScratchDirectory: Sendable {
    /// The directory's path.
    public let path: String

    /// Creates `rewind-bench-<label>-<UUID>` in the temporary directory.
    public init(_ label: String) throws {
        path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("rewind-bench-\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Removes the directory and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

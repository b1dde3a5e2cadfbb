import Foundation
import Rewind

/// `rewind demo --fresh`: removing a store, and nothing but a store.
///
/// A store is a directory holding LMDB's `data.mdb` (a regular file starting with an LMDB meta
/// page, and a Rewind store when LMDB can open it) and possibly its `lock.mdb`, nothing else.
/// Only those two files are removed (never recursively, never the directory itself), so a
/// mistyped `--store` naming a directory of the user's files, a plain file or the current
/// directory (`.`, even inside a store) is refused and left untouched.
enum StoreRemoval {
    /// LMDB's meta page magic (0xBEEFC0DE, little-endian) after the 16-byte page header.
    private static let lmdbMagic: [UInt8] = [0xDE, 0xC0, 0xEF, 0xBE]

    /// Removes the store at `path`; does nothing when `path` does not exist or is an empty
    /// directory.
    ///
    /// - Throws: ``CLIError/notRemovable(_:reason:)`` when `path` is anything but a store, or is
    ///   the current directory (nothing is removed); ``CLIError/fileSystem(_:operation:reason:)``
    ///   when the file system refuses to list or delete (permission denied, say).
    static func remove(_ path: String) throws {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        guard files.fileExists(atPath: path, isDirectory: &isDirectory) else { return }
        guard isDirectory.boolValue else {
            throw CLIError.notRemovable(path, reason: "it is a file, not a store directory")
        }
        if isCurrentDirectory(path) {
            throw CLIError.notRemovable(
                path, reason: "it is the current directory; name the store's directory from outside it")
        }
        let contents: [String]
        do {
            contents = try files.contentsOfDirectory(atPath: path)
        } catch {
            throw CLIError.fileSystem(path, operation: "read the directory", reason: FileProblem.reason(for: error))
        }
        if contents.isEmpty { return }
        let others = contents.filter { $0 != "data.mdb" && $0 != "lock.mdb" }
        guard others.isEmpty else {
            let listed = others.sorted().prefix(3).map { "'\($0)'" }.joined(separator: ", ")
            throw CLIError.notRemovable(
                path,
                reason:
                    "it holds files a store does not have (\(listed)\(others.count > 3 ? ", \(Glyphs.current.ellipsis)" : ""))"
            )
        }
        let directory = URL(fileURLWithPath: path)
        let dataFile = directory.appendingPathComponent("data.mdb").path
        if contents.contains("data.mdb") {
            try checkDataFile(dataFile, store: path)
        }
        for name in ["data.mdb", "lock.mdb"] where contents.contains(name) {
            let file = directory.appendingPathComponent(name).path
            do {
                try files.removeItem(atPath: file)
            } catch {
                throw CLIError.fileSystem(file, operation: "delete", reason: FileProblem.reason(for: error))
            }
        }
    }

    /// Whether `path` is the process's current directory (`.`, `./`, or its path by any name).
    private static func isCurrentDirectory(_ path: String) -> Bool {
        func resolved(_ path: String) -> String {
            URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
        }
        return resolved(path) == resolved(FileManager.default.currentDirectoryPath)
    }

    /// Throws unless `path` is a regular LMDB data file of a Rewind store (or one too damaged to
    /// open, whose meta page is still LMDB's).
    private static func checkDataFile(_ path: String, store: String) throws {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw CLIError.fileSystem(path, operation: "read", reason: FileProblem.reason(for: error))
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw CLIError.notRemovable(store, reason: "its data.mdb is not a regular file")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CLIError.notRemovable(store, reason: "its data.mdb cannot be read")
        }
        let head = (try? handle.read(upToCount: 20)) ?? Data()
        try? handle.close()
        if head.isEmpty { return }  // an empty data file: a store whose creation was cut short
        guard head.count == 20, Array(head.suffix(4)) == lmdbMagic else {
            throw CLIError.notRemovable(store, reason: "its data.mdb is not an LMDB data file")
        }
        do {
            var configuration = StoreConfiguration()
            configuration.readOnly = true
            let opened = try TransitionStore(directory: store, configuration: configuration)
            opened.close()
        } catch let error as StoreError {
            if case .notAStore(_, let reason, _) = error {
                throw CLIError.notRemovable(
                    store, reason: "it is an LMDB environment but not a Rewind store (\(reason))")
            }
        } catch {
            // Damaged (truncated, unreadable): still LMDB's file of a store; starting over is the point.
        }
    }
}

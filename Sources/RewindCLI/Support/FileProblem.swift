import Foundation
import Rewind

/// File-system failures in the tool's words — which path, and what happened (permission denied,
/// it is a directory, it does not exist, the disk is full) — instead of Foundation's
/// `NSCocoaErrorDomain error 512` or `Code=513 … UserInfo={…}`. One place turns Foundation's
/// and POSIX's errors into words, and one writes the files the tool writes (`view`, `export`).
enum FileProblem {
    /// What happened, as a clause (`permission denied`, `it is a directory`), for a Foundation or
    /// POSIX error; `it could not be done (…)` with the error's domain and code for anything else.
    static func reason(for error: any Error) -> String {
        let error = error as NSError
        if let errno = posixCode(of: error) { return reason(errno: errno) }
        guard error.domain == NSCocoaErrorDomain else { return "it could not be done (\(error.domain) \(error.code))" }
        switch CocoaError.Code(rawValue: error.code) {
        case .fileNoSuchFile, .fileReadNoSuchFile: return "it does not exist"
        case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
        case .fileWriteOutOfSpace: return "the disk is full"
        case .fileWriteVolumeReadOnly: return "the file system is read-only"
        case .fileWriteFileExists: return "it already exists"
        case .fileReadInvalidFileName, .fileWriteInvalidFileName: return "it is not a valid path"
        default:
            // Foundation's "unknown" errors carry no errno: look at the path's folders instead.
            let path = error.userInfo[NSFilePathErrorKey] as? String ?? (error.userInfo[NSURLErrorKey] as? URL)?.path
            return path.flatMap(folderProblem(above:)) ?? "it could not be done (Foundation error \(error.code))"
        }
    }

    /// What keeps `path` from being made, found in the nearest of its folders that exists: a file
    /// where a folder should be, or a folder the user cannot write; `nil` when neither.
    private static func folderProblem(above path: String) -> String? {
        var folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        while folder.path != "/" {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
                if !isDirectory.boolValue { return "'\(folder.path.shown)' is a file, not a folder" }
                return FileManager.default.isWritableFile(atPath: folder.path)
                    ? nil : "permission denied in '\(folder.path.shown)'"
            }
            folder.deleteLastPathComponent()
        }
        return nil
    }

    /// A whole message for a Foundation file-system error that reached the top of the tool
    /// (`'PATH': permission denied`), or `nil` when `error` is none.
    static func message(for error: any Error) -> String? {
        guard isFileSystemError(error) else { return nil }
        let error = error as NSError
        let path = error.userInfo[NSFilePathErrorKey] as? String ?? (error.userInfo[NSURLErrorKey] as? URL)?.path
        return path.map { "'\($0.shown)': \(reason(for: error))" } ?? "a file operation failed: \(reason(for: error))"
    }

    /// Whether `error` is one of Foundation's file errors or a POSIX error.
    static func isFileSystemError(_ error: any Error) -> Bool {
        let domain = (error as NSError).domain
        return domain == NSCocoaErrorDomain || domain == NSPOSIXErrorDomain
    }

    /// Writes `data` to the file `path` atomically.
    ///
    /// - Throws: ``CLIError/unwritableFile(_:reason:)`` saying why — a directory (with `hint`,
    ///   how to name a file instead), a missing folder, permission denied, a full disk, a
    ///   read-only file system.
    static func write(_ data: Data, to path: String, hint: String) throws {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if path.hasSuffix("/") || (files.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue) {
            throw CLIError.unwritableFile(path, reason: "it is a directory; \(hint)")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var folderIsDirectory: ObjCBool = false
        guard files.fileExists(atPath: folder, isDirectory: &folderIsDirectory), folderIsDirectory.boolValue else {
            throw CLIError.unwritableFile(path, reason: "its folder '\(folder)' does not exist")
        }
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CLIError.unwritableFile(path, reason: reason(for: error))
        }
    }

    /// The errno behind `error`: a POSIX error's code, or that of the error under a Foundation one.
    private static func posixCode(of error: NSError) -> Int32? {
        if error.domain == NSPOSIXErrorDomain { return Int32(error.code) }
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError { return posixCode(of: underlying) }
        return nil
    }

    /// The words for `errno`.
    private static func reason(errno: Int32) -> String {
        switch errno {
        case EACCES, EPERM: return "permission denied"
        case ENOENT: return "it does not exist"
        case EISDIR: return "it is a directory"
        case ENOTDIR: return "a part of the path is not a directory"
        case EROFS: return "the file system is read-only"
        case ENOSPC: return "the disk is full"
        case EEXIST: return "it already exists"
        case ENAMETOOLONG: return "the path is too long"
        case EBUSY: return "it is in use"
        default: return String(cString: strerror(errno)).lowercased()
        }
    }
}

import Foundation

/// The executables of the package as built next to the test bundle (`swift build --build-tests`
/// and `swift test` build every product into the same folder), for tests that run them as
/// subprocesses.
public enum BuiltProduct {
    /// The folders where the built products may be: the running test binary's folder and the
    /// folder around the test bundle.
    public static var searchDirectories: [URL] {
        var directories: [URL] = []
        if let executable = Bundle.main.executableURL { directories.append(executable.deletingLastPathComponent()) }
        directories.append(Bundle.main.bundleURL.deletingLastPathComponent())
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        return directories
    }

    /// The built executable called `name` (such as `rewind` or `RewindTestHelper`), or `nil` when
    /// it is not in any of the ``searchDirectories``.
    public static func url(named name: String) -> URL? {
        for directory in searchDirectories {
            let url = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    /// The first executable called `name` on the `PATH` (such as `tmux`), or `nil`.
    public static func onPath(named name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let url = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }
}

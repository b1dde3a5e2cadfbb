import Foundation
import RewindTestSupport

/// A size-limited tmpfs mounted on a fresh temporary directory, for the full-disk tests. Needs
/// root (or CAP_SYS_ADMIN); ``mount(megabytes:)`` returns why it could not mount instead.
struct SmallFilesystem {
    /// The mount point.
    let directory: TemporaryDirectory

    /// The mount point's path.
    var path: String { directory.path }

    /// Mounts a tmpfs of `megabytes` MiB, or returns why it cannot.
    static func mount(megabytes: Int) throws -> Result<SmallFilesystem, SkipReason> {
        guard getuid() == 0 else { return .failure(SkipReason(description: "not running as root (uid \(getuid()))")) }
        let directory = try TemporaryDirectory(prefix: "rewind-small-fs")
        let (status, output) = run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", directory.path])
        guard status == 0 else {
            directory.remove()
            return .failure(SkipReason(description: "mount -t tmpfs failed (\(status)): \(output)"))
        }
        return .success(SmallFilesystem(directory: directory))
    }

    /// Unmounts (lazily when busy) and removes the mount point.
    func unmount() {
        if Self.run("/bin/umount", [path]).status != 0 {
            _ = Self.run("/bin/umount", ["-l", path])
        }
        directory.remove()
    }

    /// Why the test could not make a small filesystem.
    struct SkipReason: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `executable` to its end (a `SpawnedProcess`: Foundation's `Process.run()` crashed a CI
    /// run here, reading past a buffer in `memmove`); its status and output.
    private static func run(_ executable: String, _ arguments: [String]) -> (status: Int32, output: String) {
        do {
            let output = try runProcessBlocking(URL(fileURLWithPath: executable), arguments: arguments)
            return (output.status, output.stdout + output.stderr)
        } catch {
            return (-1, "\(error)")
        }
    }
}

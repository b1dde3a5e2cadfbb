#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The kernel's table of file locks, as Linux lists it in `/proc/locks` (read by
/// ``DataFileLock``).
enum LockTable {
    /// The process ids under which the table lists a granted `flock` on the file `inode` of
    /// `device` (a `stat`'s `st_dev` and `st_ino`), one per lock; `nil` where there is no such
    /// table (other systems) or it cannot be read.
    ///
    /// A line reads `1: FLOCK  ADVISORY  READ 4711 fe:00:16236927 0 EOF` (a request still waiting
    /// has `->` after its number): the id is of the process that took the lock, whichever
    /// processes hold its open file description now.
    static func holders(device: UInt64, inode: UInt64, table path: String = "/proc/locks") -> [Int32]? {
        guard let text = contents(of: path) else { return nil }
        // glibc's `major` and `minor` of a `dev_t`, which Swift does not import (macros).
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~UInt64(0xfff))
        let minor = (device & 0xff) | ((device >> 12) & ~UInt64(0xff))
        var holders: [Int32] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK" else { continue }
            let file = fields[5].split(separator: ":")
            guard file.count == 3, UInt64(file[0], radix: 16) == major, UInt64(file[1], radix: 16) == minor,
                UInt64(file[2]) == inode, let pid = Int32(fields[4])
            else { continue }
            holders.append(pid)
        }
        return holders
    }

    /// The whole text of `path` (a file of `/proc`, whose length `stat` does not tell), or `nil`.
    private static func contents(of path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

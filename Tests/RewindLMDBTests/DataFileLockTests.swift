import Foundation
import RewindBaseTestSupport
import Testing

@testable import RewindLMDB

#if canImport(Glibc)
    import Glibc
#endif

/// `DataFileLock.exclusive`: a compaction's lock waits for a lock of this process that a child
/// holds between its `fork` and its `exec`, never for another process's.
struct DataFileLockTests {
    #if os(Linux)
        /// The kernel lists a lock under the process that took it, which a child inheriting its
        /// descriptor goes on holding after this process closed its own: the exclusive lock waits
        /// for the child to let go (here: killed at the first wait) and is taken.
        @Test func aLockOfThisProcessThatAChildStillHoldsIsWaitedFor() throws {
            let directory = try TestDirectory("flock-child")
            defer { directory.remove() }
            let child = try Self.childHoldingASharedLock(on: directory.path + "/data.mdb")
            defer { child.send(SIGKILL) }
            #expect(Self.holders(of: directory.path + "/data.mdb") == [getpid()])
            var waits = 0
            let lock = try DataFileLock.exclusive(directory: directory.path) {
                waits += 1
                if waits == 1 { child.send(SIGKILL) }
            }
            #expect(lock != nil)
            #expect(waits >= 1)
            lock?.release()
        }

        /// A child that never lets go: the exclusive lock is refused once its patience is spent.
        @Test func aLockOfThisProcessHeldTooLongIsRefused() throws {
            let directory = try TestDirectory("flock-child-long")
            defer { directory.remove() }
            let child = try Self.childHoldingASharedLock(on: directory.path + "/data.mdb")
            defer { child.send(SIGKILL) }
            var waits = 0
            let lock = try DataFileLock.exclusive(directory: directory.path, patience: .milliseconds(20)) {
                waits += 1
            }
            #expect(lock == nil)
            #expect(waits >= 1)
        }

        /// Another process's lock is refused at once: no wait.
        @Test func anotherProcesssLockIsRefusedWithoutWaiting() async throws {
            let directory = try TestDirectory("flock-other")
            defer { directory.remove() }
            let path = directory.path + "/data.mdb"
            #expect(FileManager.default.createFile(atPath: path, contents: Data([1])))
            // `--no-fork`: `flock` runs `sleep` in its own process, which holds the lock.
            let holder = try Self.spawn("/usr/bin/flock", ["--shared", "--no-fork", path, "/bin/sleep", "3600"])
            defer { holder.send(SIGKILL) }
            while Self.holders(of: path) != [holder.pid] { try await Task.sleep(for: .milliseconds(5)) }
            var waits = 0
            let lock = try DataFileLock.exclusive(directory: directory.path) { waits += 1 }
            #expect(lock == nil)
            #expect(waits == 0)
        }

        @Test func theLockTableNamesTheGrantedFlocksOfAFile() throws {
            let directory = try TestDirectory("lock-table")
            defer { directory.remove() }
            let table = directory.path + "/locks"
            try """
            1: FLOCK  ADVISORY  READ 4711 fe:01:16236927 0 EOF
            1: -> FLOCK  ADVISORY  WRITE 4712 fe:01:16236927 0 EOF
            2: POSIX  ADVISORY  WRITE 4713 fe:01:16236927 0 0
            3: FLOCK  ADVISORY  WRITE 4714 fe:01:16236928 0 EOF
            4: FLOCK  ADVISORY  WRITE 4715 fe:02:16236927 0 EOF
            5: FLOCK  ADVISORY  READ 4716 fe:01:16236927 0 EOF

            """.write(toFile: table, atomically: true, encoding: .utf8)
            // glibc's dev_t of major 0xfe, minor 1.
            let device: UInt64 = 0xfe << 8 | 1
            #expect(LockTable.holders(device: device, inode: 16_236_927, table: table) == [4711, 4716])
            #expect(LockTable.holders(device: device, inode: 1, table: table) == [])
            #expect(LockTable.holders(device: device, inode: 16_236_927, table: directory.path + "/none") == nil)
        }

        /// What the CI run of 2026-11-30 met (`CompactionCrashTests`): tests on other threads
        /// starting programs while a compaction takes its lock. Each child holds this process's
        /// descriptors (the environment's shared lock among them) from its clone to its `exec`;
        /// every compaction here must go ahead all the same.
        @Test func aCompactionGoesAheadWhileThisProcessStartsChildren() async throws {
            let directory = try TestDirectory.filledEnvironment("compact-spawning")
            defer { directory.remove() }
            let env = try Environment(directory: directory.path)
            defer { env.close() }
            let db = try env.database(named: "things", create: false)
            let started = LockedBox(0)
            let spawning = Task.detached {
                while !Task.isCancelled {
                    let child = try Self.spawn("/bin/true", [])
                    _ = await child.waitForExit()
                    started.withValue { $0 += 1 }
                }
            }
            defer { spawning.cancel() }
            // At least 50 compactions, and on until the children started meanwhile number 100 (on
            // a loaded machine the starting task may wait long for a thread).
            var round: UInt64 = 0
            while round < 50 || started.current < 100 {
                try env.write { try $0.put([UInt8(truncatingIfNeeded: round)], forKey: round.key, in: db) }
                try env.compact()
                round += 1
                await Task.yield()
            }
            spawning.cancel()
            try await spawning.value
            #expect(try env.read { try $0.get((round - 1).key, in: db) } == [UInt8(truncatingIfNeeded: round - 1)])
        }

        /// The pids the kernel lists for granted `flock`s on `path`.
        static func holders(of path: String) -> [Int32] {
            var file = stat()
            guard stat(path, &file) == 0 else { return [] }
            return LockTable.holders(device: UInt64(file.st_dev), inode: UInt64(file.st_ino)) ?? []
        }

        /// A child (`sleep`) given this process's descriptor of `path` (created) with a shared
        /// `flock` on it, as a child between `fork` and `exec` has; this process's descriptor closed.
        static func childHoldingASharedLock(on path: String) throws -> SpawnedProcess {
            #expect(FileManager.default.createFile(atPath: path, contents: Data([1])))
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0, flock(fd, LOCK_SH) == 0 else { throw POSIXError(.EIO) }
            defer { close(fd) }
            return try spawn("/bin/sleep", ["3600"], descriptor3: fd)
        }

        /// `executable` started with `arguments`, its standard streams on `/dev/null`.
        static func spawn(_ executable: String, _ arguments: [String], descriptor3: Int32? = nil) throws
            -> SpawnedProcess
        {
            let null = open("/dev/null", O_RDWR | O_CLOEXEC)
            guard null >= 0 else { throw POSIXError(.EIO) }
            defer { close(null) }
            return try SpawnedProcess(
                executable, arguments: arguments, stdin: null, stdout: null, stderr: null, descriptor3: descriptor3)
        }
    #endif
}

import Foundation
import Rewind
import Synchronization

/// `RewindTestHelper readers <hold|take> <store> <count> <max-readers>`
///
/// Opens the store with a reader table of `<max-readers>` slots and opens `<count>` read
/// transactions at once, one per thread. `hold`: prints `holding <count>` once all are open and
/// keeps them open until the process is killed (leaving stale reader slots behind). `take`:
/// prints `took <count>` once all are open at the same time, ends them and exits 0; a read
/// transaction that cannot begin (LMDB's `MDB_READERS_FULL`) prints `error <description>` and
/// exits 1.
enum ReaderMode {
    static let name = "readers"

    static func run(arguments: [String]) throws {
        guard arguments.count == 4, ["hold", "take"].contains(arguments[0]), let count = Int(arguments[2]),
            let maxReaders = Int(arguments[3])
        else {
            throw HelperFailure(message: "usage: RewindTestHelper readers <hold|take> <store> <count> <max-readers>")
        }
        let hold = arguments[0] == "hold"
        let store = try TransitionStore(
            directory: arguments[1],
            configuration: StoreConfiguration(environment: EnvironmentConfiguration(maxReaders: maxReaders)))
        let opened = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        let failures = FailureList()
        for _ in 0..<count {
            finished.enter()
            Thread.detachNewThread {
                defer { finished.leave() }
                do {
                    try store.read { transaction in
                        _ = try transaction.headSequence()
                        opened.signal()
                        release.wait()
                    }
                } catch {
                    failures.add("\(error)")
                    opened.signal()
                }
            }
        }
        for _ in 0..<count { opened.wait() }
        let writer = LineWriter()
        if let failure = failures.first {
            writer.write("error \(failure)\n")
            exit(1)
        }
        if hold {
            writer.write("holding \(count)\n")
            while true { sleep(60) }
        }
        writer.write("took \(count)\n")
        for _ in 0..<count { release.signal() }
        finished.wait()
        store.close()
    }
}

/// The errors of the reader threads. `@unchecked Sendable`: `lock` guards `failures` (an `NSLock`,
/// which the CI's ThreadSanitizer run sees; see scripts/tsan-suppressions.txt).
final class FailureList: @unchecked Sendable {
    private let lock = NSLock()
    private var failures: [String] = []

    func add(_ failure: String) { lock.withLock { failures.append(failure) } }
    var first: String? { lock.withLock { failures.first } }
}

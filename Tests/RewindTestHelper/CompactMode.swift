import Foundation
import Rewind

/// `RewindTestHelper compact <store> <step> <pause>`
///
/// Opens an engine on `<store>` and compacts it. When the compaction reaches `<step>` (`copying`,
/// `copied` or `replaced`) it prints `step <step>` and then, by `<pause>`: `none` goes on at
/// once (the test kills it wherever it is by then), `forever` waits until it is killed, a path
/// waits until that file exists and goes on. Prints `compacted <bytes before> <bytes after>` when
/// the compaction returned, or `refused <description>` when it threw a `CompactionError`.
enum CompactMode {
    static let name = "compact"

    static func run(arguments: [String]) throws {
        guard arguments.count == 3, let target = CompactionStep(rawValue: arguments[1]) else {
            throw HelperFailure(
                message: "usage: RewindTestHelper compact <store> <copying|copied|replaced> <none|forever|go-file>")
        }
        let pause = arguments[2]
        let engine = try Engine(directory: arguments[0])
        defer { engine.close() }
        let writer = LineWriter()
        do {
            let result = try engine.compact { step in
                guard step == target else { return }
                writer.write("step \(step.rawValue)\n")
                switch pause {
                case "none": return
                case "forever": while true { sleep(60) }
                default: while !FileManager.default.fileExists(atPath: pause) { usleep(2_000) }
                }
            }
            writer.write("compacted \(result.bytesBefore) \(result.bytesAfter)\n")
        } catch let error as CompactionError {
            writer.write("refused \(error)\n")
        }
    }
}

/// `RewindTestHelper hold <store>`
///
/// Opens an engine on `<store>` (waiting while another process compacts it), prints
/// `opened <inode of data.mdb> <head sequence>` and keeps it open until killed.
enum HoldMode {
    static let name = "hold"

    static func run(arguments: [String]) throws {
        guard arguments.count == 1 else { throw HelperFailure(message: "usage: RewindTestHelper hold <store>") }
        let engine = try Engine(directory: arguments[0])
        defer { engine.close() }
        var status = stat()
        stat(arguments[0] + "/data.mdb", &status)
        LineWriter().write("opened \(status.st_ino) \(try engine.store.headSequence())\n")
        while true { sleep(60) }
    }
}

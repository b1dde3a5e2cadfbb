import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// Reading an archive file refuses a line over the limit as soon as it passes it.
struct SessionArchiveReadingTests {
    @Test func aLineOverTheLimitIsRefusedWithItsNumber() throws {
        let directory = try TemporaryDirectory(prefix: "rewind-archive")
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("long.ndjson")
        try Data(("short\n" + String(repeating: "x", count: 3_000_001) + "\nafter\n").utf8).write(to: file)
        #expect(throws: SessionArchiveError.lineTooLong(line: 2, limit: 3_000_000)) {
            _ = try SessionArchive.read(from: file, maximumLineBytes: 3_000_000)
        }
        // At the limit, the whole file is read.
        #expect(try SessionArchive.read(from: file, maximumLineBytes: 3_000_001).count == 3_000_001 + 13)
    }

    @Test func anEndlessLineIsRefusedAfterTheLimitNotReadToItsEnd() throws {
        // /dev/zero never ends: only stopping at the limit returns.
        let error = #expect(throws: SessionArchiveError.self) {
            _ = try SessionArchive.read(from: URL(fileURLWithPath: "/dev/zero"), maximumLineBytes: 1 << 20)
        }
        #expect(error == .lineTooLong(line: 1, limit: 1 << 20))
        #expect(error?.line == 1)
    }
}

import Foundation
import Rewind
import RewindTestSupport
import Testing

/// "Physically gone": after an erasure and a compaction, no byte of the erased session — its id,
/// payloads, state data, context, large values — is in any file of the store.
struct ErasureCompactionTests {
    /// Whether any file of `directory` contains `marker`.
    private func filesContain(_ marker: String, in directory: URL) throws -> [String] {
        let needle = Data(marker.utf8)
        var found: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            if data.range(of: needle) != nil { found.append(name) }
        }
        return found
    }

    /// Writes session `id` with markers named after `tag` in its context, payloads (so its state
    /// data), and a payload larger than a page (an overflow value).
    private func write(_ tag: String, id: String, in engine: Engine) async throws {
        let session = try await engine.startSession(
            id: try SessionID(id), machine: TickerMachine.name, context: ["account": .string("ctx-\(tag)")])
        for n in 0..<40 {
            try await session.send(
                TickerMachine.tick, payload: ["n": .number(Double(n)), "note": .string("pay-\(tag)-\(n)")])
        }
        let large = String(repeating: "big-\(tag)-", count: 2_000)
        try await session.send(TickerMachine.tick, payload: ["blob": .string(large)])
        try await session.send(TickerMachine.tick, payload: ["after": .string("tail-\(tag)")])
    }

    @Test func anErasedSessionsBytesAreInNoFileOfTheStoreAfterCompaction() async throws {
        let fixture = try EngineFixture(snapshotInterval: 8)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try TickerMachine.machine()])
        defer { engine.close() }
        // Interleaved with a session that stays, so the erased records shared pages with kept ones.
        try await write("ERASEDMARK", id: "user-ERASEDID", in: engine)
        try await write("KEPTMARK", id: "user-KEPTID", in: engine)
        try await write("ERASEDMARK2", id: "user-ERASEDID2", in: engine)
        let directory = fixture.directory.url
        for marker in ["ERASEDID", "ctx-ERASEDMARK", "pay-ERASEDMARK-7", "big-ERASEDMARK-", "tail-ERASEDMARK"] {
            #expect(try !filesContain(marker, in: directory).isEmpty, "the search finds \(marker) before the erasure")
        }

        try engine.erase(where: .idPrefix("user-ERASEDID"))
        // Writes after the erasure reuse the pages it freed: a large value's overflow pages keep
        // what those pages held after the value (LMDB does not clear a page it reuses), and the
        // compacting copy would copy that slack.
        let kept = try engine.session("user-KEPTID")
        for n in 0..<30 {
            try await kept.send(
                TickerMachine.tick, payload: ["blob": .string(String(repeating: "x", count: 2_100 + 97 * n))])
        }
        let result = try engine.compact()
        #expect(result.bytesAfter <= result.bytesBefore)

        for marker in ["ERASEDID", "ERASEDMARK"] {
            #expect(try filesContain(marker, in: directory).isEmpty, "\(marker) is still in the store's files")
        }
        // What stays is there, whole: the kept session resumes with its large value.
        for marker in ["KEPTID", "ctx-KEPTMARK", "big-KEPTMARK-", "tail-KEPTMARK"] {
            #expect(try !filesContain(marker, in: directory).isEmpty, "\(marker) was lost")
        }
        #expect(try engine.checkStore().isConsistent)
        let resumed = try engine.session("user-KEPTID")
        #expect(resumed.version == 73)
        #expect(resumed.state.context["account"] == "ctx-KEPTMARK")
    }
}

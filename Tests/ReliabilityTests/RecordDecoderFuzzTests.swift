import Foundation
import Rewind
@_spi(Internals) import RewindStore
import RewindTestSupport
import Testing

/// Promise 5 for stored records: a corrupted record is a typed error naming its sequence, never a
/// crash, a hang or a wild allocation.
struct RecordDecoderFuzzTests {
    /// Valid records of every shape: with and without origin, navigation, payload, state data.
    static func seeds() throws -> [TransitionRecord] {
        let navigation: [[NavigationOperation]] = [
            [], [.push("detail")], [.pop, .push("list")], [.popToRoot], [.popTo("all"), .replace("日本")],
            [.setRoot("home"), .none],
        ]
        return try (0..<12).map { index in
            TransitionRecord(
                sequence: UInt64(index * 37 + 1), session: try SessionID("session-\(index)"),
                version: UInt64(index * 300 + 1),
                timestamp: Timestamp(microsecondsSince1970: 1_700_000_000_000_000 + Int64(index)),
                machine: index % 2 == 0 ? "onboarding" : "kanji", definition: String(repeating: "ab", count: 32),
                event: index == 0 ? "rewind.start" : "event-\(index)", source: index == 0 ? [] : ["root", "s\(index)"],
                target: ["root", "t\(index)"], navigation: navigation[index % navigation.count],
                payload: Array("{\"n\":\(index),\"text\":\"é\"}".utf8),
                stateData: index % 3 == 0 ? [] : Array("[1,2]".utf8),
                origin: index % 4 == 0 ? RecordOrigin(session: SessionID("parent"), version: 7) : nil)
        }
    }

    /// `bytes` with its trailing CRC-32C recomputed, so that a mutation reaches the field parser.
    static func resealed(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= 4 else { return bytes }
        var body = Array(bytes.dropLast(4))
        let crc = body.withUnsafeBytes { CRC32C.checksum($0) }
        withUnsafeBytes(of: crc.littleEndian) { body.append(contentsOf: $0) }
        return body
    }

    // The limit catches hangs; it is generous for sanitizer builds (about 10x slower).
    @Test(.hangGuard)
    func mutatedRecordsDecodeToTheSameBytesOrThrowCorruptedRecordNamingTheirSequence() async throws {
        let seeds = try Self.seeds()
        var mutator = Mutator(seed: 0xDEC0_DE01)
        var outcomes = (decoded: 0, rejected: 0)
        for iteration in 0..<6_000 {
            // CPU-bound: let the other tests (time-limited, sharing the cooperative pool) run.
            if iteration % 50 == 0 { await Task.yield() }
            let seed = seeds[iteration % seeds.count]
            var bytes = mutator.mutate(RecordCodec.encode(seed))
            // Half the inputs keep a valid checksum, to get past it into the fields.
            if iteration % 2 == 0 { bytes = Self.resealed(bytes) }
            do {
                let record = try RecordCodec.decode(bytes, sequence: seed.sequence)
                outcomes.decoded += 1
                #expect(
                    RecordCodec.encode(record) == bytes,
                    "input \(iteration) decoded to a record that encodes differently: \(bytes)")
            } catch StoreError.corruptedRecord(let sequence, _) {
                outcomes.rejected += 1
                #expect(sequence == seed.sequence)
            } catch {
                Issue.record("input \(iteration): untyped error \(error) for \(bytes)")
            }
        }
        print("record decoder: \(outcomes.decoded) decoded, \(outcomes.rejected) rejected")
        #expect(outcomes.rejected > 0)
    }

    @Test func absurdCountsAndLengthsAreRejectedWithoutAllocatingThem() throws {
        // format 1, no flags, sequence 1, version 1, timestamp, then the session's length.
        let prefix: [UInt8] = [1, 0, 1, 1] + [UInt8](repeating: 0, count: 8)
        func varint(_ value: UInt64) -> [UInt8] {
            var value = value
            var bytes: [UInt8] = []
            repeat {
                let byte = UInt8(value & 0x7F)
                value >>= 7
                bytes.append(value == 0 ? byte : byte | 0x80)
            } while value != 0
            return bytes
        }
        func string(_ text: String) -> [UInt8] { varint(UInt64(text.utf8.count)) + Array(text.utf8) }
        let fields = string("s") + string("m") + string("d") + string("e")
        let cases: [(String, [UInt8])] = [
            ("a session length of 1 GiB", prefix + varint(1 << 30) + Array("s".utf8)),
            ("2^60 source strings", prefix + fields + varint(1 << 60)),
            ("2^60 target strings", prefix + fields + varint(0) + varint(1 << 60)),
            ("2^60 navigation operations", prefix + fields + varint(0) + varint(1) + string("t") + varint(1 << 60)),
            ("a payload of 1 GiB", prefix + fields + varint(0) + varint(1) + string("t") + varint(0) + varint(1 << 30)),
            ("a varint of 11 bytes", prefix + [UInt8](repeating: 0xFF, count: 10) + [0x01]),
            ("a varint overflowing 64 bits", [1, 0] + [UInt8](repeating: 0xFF, count: 9) + [0x02]),
            // Found by the libFuzzer harness: accepted, then re-encoded to other bytes.
            (
                "a version varint with a redundant zero byte",
                [1, 0, 1, 0x9C, 0x00] + [UInt8](repeating: 0, count: 8) + fields
                    + varint(0) + varint(1) + string("t") + varint(0) + varint(0) + varint(0)
            ),
        ]
        for (name, body) in cases {
            let bytes = Self.resealed(body + [0, 0, 0, 0])
            #expect(throws: StoreError.self, "\(name)") { try RecordCodec.decode(bytes, sequence: 1) }
        }
    }
}

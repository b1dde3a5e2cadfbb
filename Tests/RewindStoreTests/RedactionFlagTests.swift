import Foundation
@_spi(Internals) import RewindStore
import Testing

/// The record's flags bit 1, `redacted`: it round-trips through the codec and the record view,
/// with and without an origin; every other unknown bit is still a corrupted record.
struct RedactionFlagTests {
    func record(redacted: Bool, origin: RecordOrigin?) throws -> TransitionRecord {
        TransitionRecord(
            sequence: 5, session: SessionID("s"), version: 2, timestamp: Timestamp(microsecondsSince1970: 1),
            machine: "signup", definition: "d", event: "submit", source: ["form"], target: ["profile"],
            navigation: [], payload: Array(#"{"age":"‹redacted›"}"#.utf8), stateData: [], origin: origin,
            redacted: redacted)
    }

    @Test func theRedactedBitRoundTripsWithAndWithoutAnOrigin() throws {
        for origin in [nil, RecordOrigin(session: SessionID("parent"), version: 3)] {
            for redacted in [false, true] {
                let original = try record(redacted: redacted, origin: origin)
                let bytes = RecordCodec.encode(original)
                #expect(bytes[1] == (origin == nil ? 0 : 1) | (redacted ? 2 : 0))
                let decoded = try RecordCodec.decode(bytes, sequence: 5)
                #expect(decoded.redacted == redacted)
                #expect(decoded == original)
            }
        }
    }

    @Test func otherUnknownFlagBitsAreStillACorruptedRecord() throws {
        var bytes = RecordCodec.encode(try record(redacted: true, origin: nil))
        bytes[1] |= 4
        let body = bytes.dropLast(4)
        let checksum = CRC32C.checksum(Array(body))
        bytes = Array(body) + withUnsafeBytes(of: checksum.littleEndian) { Array($0) }
        #expect(throws: StoreError.corruptedRecord(sequence: 5, reason: "unknown flags 6")) {
            _ = try RecordCodec.decode(bytes, sequence: 5)
        }
    }

    @Test func aDraftEncodesTheFlagInJSONOnlyWhenSet() throws {
        let plain = try JSONEncoder().encode(try record(redacted: false, origin: nil).transition)
        #expect(!String(decoding: plain, as: UTF8.self).contains("redacted"))
        let flagged = try record(redacted: true, origin: nil).transition
        let decoded = try JSONDecoder().decode(TransitionDraft.self, from: try JSONEncoder().encode(flagged))
        #expect(decoded.redacted)
        #expect(try JSONDecoder().decode(TransitionDraft.self, from: plain).redacted == false)
    }
}

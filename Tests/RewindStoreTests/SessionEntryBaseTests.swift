import Foundation
import RewindLMDB
import Testing

@_spi(Internals) @testable import RewindStore

/// A session entry's base version (store format 5): encoded behind flags bit 1, decoded back,
/// checked against the head, and unknown flags refused as a typed corrupted entry.
struct SessionEntryBaseTests {
    private func info(base: UInt64?, origin: RecordOrigin? = nil) -> SessionInfo {
        SessionInfo(
            session: "s", headVersion: 70, headSequence: 900, machine: "m", recordCount: 11,
            created: Timestamp(microsecondsSince1970: 1), updated: Timestamp(microsecondsSince1970: 2), origin: origin,
            baseVersion: base)
    }

    private func decode(_ bytes: [UInt8]) throws -> SessionInfo {
        try bytes.withUnsafeBytes { try SessionInfoCodec.decode($0, session: "s").info }
    }

    private func encoded(_ info: SessionInfo) -> [UInt8] {
        var bytes: [UInt8] = []
        // 70 % 32 = 6 recent sequences, the last one the head's.
        SessionInfoCodec.encode(
            info, recent: [895, 896, 897, 898, 899, 900], format: SessionInfoCodec.formatVersion, into: &bytes)
        return bytes
    }

    @Test func theBaseVersionRoundTripsWithAndWithoutAnOrigin() throws {
        for origin in [nil, RecordOrigin(session: "o", version: 3)] {
            #expect(try decode(encoded(info(base: 60, origin: origin))) == info(base: 60, origin: origin))
            #expect(try decode(encoded(info(base: nil, origin: origin))) == info(base: nil, origin: origin))
        }
        // An untrimmed entry is byte for byte what format 4 wrote: flags 0, no base.
        #expect(encoded(info(base: nil))[1] == 0)
        #expect(encoded(info(base: 60))[1] == 2)
    }

    @Test func aBaseBeyondTheHeadOrAnUnknownFlagIsACorruptedEntry() throws {
        #expect(throws: StoreError.self) { try decode(encoded(info(base: 71))) }
        #expect(throws: StoreError.self) { try decode(encoded(info(base: 0))) }
        var unknown = encoded(info(base: nil))
        unknown[1] = 4
        // Re-checksummed, so only the flag is wrong.
        let body = Array(unknown.dropLast(4))
        unknown = body
        unknown.putLittleEndian(CRC32C.checksum(body))
        do {
            _ = try decode(unknown)
            Issue.record("an unknown flag was accepted")
        } catch let StoreError.corruptedEntry(_, _, reason) {
            #expect(reason.contains("unknown flags"))
        }
    }

    @Test func placeholderSequencesAreAcceptedOnlyBelowTheBase() throws {
        func entry(base: UInt64?, recent: [UInt64]) -> [UInt8] {
            var bytes: [UInt8] = []
            SessionInfoCodec.encode(
                info(base: base), recent: recent, format: SessionInfoCodec.formatVersion, into: &bytes)
            return bytes
        }
        // Head 70, recent versions 65…70: a session that began at 68 holds 0 for 65…67.
        let begun = try entry(base: 68, recent: [0, 0, 0, 898, 899, 900]).withUnsafeBytes {
            try SessionInfoCodec.decode($0, session: "s")
        }
        #expect(begun.recent == [0, 0, 0, 898, 899, 900])
        #expect(begun.info == info(base: 68))
        // At or after the base, or without one, a 0 is out of order: a corrupted entry.
        #expect(throws: StoreError.self) { try decode(entry(base: 67, recent: [0, 0, 0, 898, 899, 900])) }
        #expect(throws: StoreError.self) { try decode(entry(base: nil, recent: [0, 0, 0, 898, 899, 900])) }
        #expect(throws: StoreError.self) { try decode(entry(base: 68, recent: [0, 0, 897, 0, 899, 900])) }
    }
}

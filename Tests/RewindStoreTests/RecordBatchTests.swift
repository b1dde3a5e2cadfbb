@_spi(Internals) import RewindStore
import Testing

/// The upload framing: `RWB1` without bases (the bytes of before bases existed), `RWB2` with them,
/// each round-tripping through the one codec, and every damaged body a typed error at its byte.
struct RecordBatchTests {
    private let definition = RecordBatch.Definition(
        machine: "onboarding", contentVersion: "abc", document: Array("{}".utf8))
    private let base = RecordBatch.Base(session: "user-7", version: 3, snapshot: Array(#"{"version":3}"#.utf8))

    @Test func aBatchWithoutBasesIsRWB1ByteForByte() throws {
        let batch = RecordBatch(firstSequence: 9, records: [[1, 2, 3], [4]], definitions: [definition])
        let bytes = batch.encoded()
        var expected = Array("RWB1".utf8)
        expected += [9, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0]
        expected +=
            [10, 0, 0, 0] + Array("onboarding".utf8) + [3, 0, 0, 0] + Array("abc".utf8) + [2, 0, 0, 0]
            + Array("{}".utf8)
        expected += [3, 0, 0, 0, 1, 2, 3, 1, 0, 0, 0, 4]
        #expect(bytes == expected)
        #expect(try RecordBatch(decoding: bytes) == batch)
    }

    @Test func aBatchWithBasesIsRWB2AndRoundTrips() throws {
        let batch = RecordBatch(firstSequence: 1, records: [[7, 7]], definitions: [definition], bases: [base])
        let bytes = batch.encoded()
        #expect(Array(bytes.prefix(4)) == Array("RWB2".utf8))
        #expect(try RecordBatch(decoding: bytes) == batch)
        // The base lies between the definitions and the records.
        let withoutBases = RecordBatch(firstSequence: 1, records: [[7, 7]], definitions: [definition]).encoded()
        #expect(bytes.count == withoutBases.count + 4 + 4 + 6 + 8 + 4 + base.snapshot.count)
    }

    @Test func damagedBasesAreTypedErrorsAtTheirByte() throws {
        let bytes = RecordBatch(firstSequence: 1, records: [[7]], definitions: [], bases: [base]).encoded()
        // Header: magic 4, first sequence 8, counts 8; then the base count at byte 20.
        let baseCountOffset = 20
        // Every cut inside the bases or the record is an error, never a crash.
        for length in 4..<bytes.count {
            #expect(throws: RecordBatch.FramingError.self) { try RecordBatch(decoding: bytes.prefix(length)) }
        }
        // A base count the body cannot hold.
        var lying = bytes
        lying.replaceSubrange(baseCountOffset..<(baseCountOffset + 4), with: [0xFF, 0xFF, 0, 0])
        #expect {
            try RecordBatch(decoding: lying)
        } throws: { error in
            (error as? RecordBatch.FramingError)?.offset == baseCountOffset + 4
        }
        // A base at version 0.
        let versionOffset = baseCountOffset + 4 + 4 + base.session.utf8.count
        var zero = bytes
        zero.replaceSubrange(versionOffset..<(versionOffset + 8), with: [UInt8](repeating: 0, count: 8))
        #expect {
            try RecordBatch(decoding: zero)
        } throws: { error in
            let framing = error as? RecordBatch.FramingError
            return framing?.offset == versionOffset
                && framing?.reason == "base 0 is at version 0 (a base is a version of the session)"
        }
        // Another magic.
        var other = bytes
        other[3] = UInt8(ascii: "9")
        #expect {
            try RecordBatch(decoding: other)
        } throws: { error in
            (error as? RecordBatch.FramingError)?.reason.contains("RWB1 or RWB2") == true
        }
    }
}

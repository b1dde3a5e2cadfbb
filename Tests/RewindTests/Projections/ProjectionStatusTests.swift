import RewindStore
import Testing

@testable import Rewind

struct ProjectionStatusTests {
    @Test func checkpointsRoundTripWithAndWithoutAFailure() throws {
        let plain = ProjectionStatus(name: "p", version: 7, checkpoint: 1 << 40)
        let failed = ProjectionStatus(
            name: "p", version: 1, checkpoint: 41,
            failure: ProjectionFailure(sequence: 42, session: SessionID("s-1"), reason: "bad ✗"))
        for status in [plain, failed] {
            let bytes = CheckpointCodec.encode(status)
            #expect(try bytes.withUnsafeBytes { try CheckpointCodec.decode($0, name: "p") } == status)
        }
    }

    @Test func aCorruptedCheckpointNamesItsProjection() {
        let bytes = CheckpointCodec.encode(ProjectionStatus(name: "p", version: 1, checkpoint: 9))
        for corrupted in [Array(bytes.dropLast()), [2] + bytes.dropFirst(), bytes + [0]] {
            #expect {
                try corrupted.withUnsafeBytes { try CheckpointCodec.decode($0, name: "screens") }
            } throws: { error in
                guard case .corruptedCheckpoint(let projection, _) = error as? ProjectionError else { return false }
                return projection == "screens"
            }
        }
    }

    @Test func progressReportsRateAndFraction() {
        let progress = ProjectionProgress(projection: "p", recordsDone: 500, recordsTotal: 1_000, elapsedSeconds: 0.25)
        #expect(progress.recordsPerSecond == 2_000)
        #expect(progress.fractionDone == 0.5)
        #expect(
            ProjectionProgress(projection: "p", recordsDone: 0, recordsTotal: 0, elapsedSeconds: 0).fractionDone == 1)
    }

    @Test func stateFieldsRoundTrip() throws {
        var writer = StateWriter()
        writer.varint(0)
        writer.varint(.max)
        writer.int64(.min)
        writer.int64(-1)
        writer.string("日本")
        writer.data([0, 255])
        let bytes = writer.bytes
        try bytes.withUnsafeBytes { buffer in
            var reader = StateReader(buffer)
            #expect(try reader.varint() == 0)
            #expect(try reader.varint() == .max)
            #expect(try reader.int64() == .min)
            #expect(try reader.int64() == -1)
            #expect(try reader.string() == "日本")
            #expect(try reader.data() == [0, 255])
            try reader.expectEnd()
            #expect(throws: StateDecodingError.self) { try reader.byte() }
        }
    }
}

/// The projections' state coding uses the store's varint codec: the same bytes, the same checks.
struct StateCodingVarintTests {
    @Test func stateVarintsAreTheStoresBytes() throws {
        for value: UInt64 in [0, 127, 128, 1 << 14, .max] {
            var writer = StateWriter()
            writer.varint(value)
            var expected: [UInt8] = []
            Varint.append(value, to: &expected)
            #expect(writer.bytes == expected)
            try writer.bytes.withUnsafeBytes { buffer in
                var reader = StateReader(buffer)
                #expect(try reader.varint() == value)
                try reader.expectEnd()
            }
        }
    }

    @Test func truncatedAndOverlongStateVarintsAreRejected() {
        let cases: [[UInt8]] = [[], [0x80], [0x80, 0x00], Array(repeating: 0xFF, count: 9) + [0x02]]
        for bytes in cases {
            bytes.withUnsafeBytes { buffer in
                var reader = StateReader(buffer)
                #expect(throws: StateDecodingError.self, "\(bytes)") { try reader.varint() }
            }
        }
    }
}

import Testing

@testable import RewindStore

/// The one varint codec (``Varint``) and the readers built on it: the store's `ByteReader` (records,
/// session entries) gives the same values and rejects the same bytes.
@Suite("Varints")
struct VarintTests {
    /// Boundary values and their exact encodings (unsigned LEB128, shortest form).
    static let encodings: [(UInt64, [UInt8])] = [
        (0, [0x00]),
        (1, [0x01]),
        (127, [0x7F]),
        (128, [0x80, 0x01]),
        (300, [0xAC, 0x02]),
        ((1 << 14) - 1, [0xFF, 0x7F]),
        (1 << 14, [0x80, 0x80, 0x01]),
        (UInt64(UInt32.max), [0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),
        (1 << 63, [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]),
        (.max, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
    ]

    @Test func boundaryValuesEncodeToTheirShortestBytesAndBack() {
        for (value, expected) in Self.encodings {
            var bytes: [UInt8] = []
            Varint.append(value, to: &bytes)
            #expect(bytes == expected, "\(value)")
            #expect(bytes.count <= Varint.maximumByteCount)
            // Read back in the middle of other bytes: the offset moves past it exactly.
            let framed: [UInt8] = [0xAA] + bytes + [0xBB]
            framed.withUnsafeBytes { buffer in
                var offset = 1
                #expect((try? Varint.read(buffer, at: &offset)) == value)
                #expect(offset == 1 + expected.count)
            }
        }
    }

    @Test func theStoreReaderReadsWhatTheCodecWrites() {
        var bytes: [UInt8] = []
        for (value, _) in Self.encodings { Varint.append(value, to: &bytes) }
        bytes.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer)
            for (value, _) in Self.encodings { #expect((try? reader.varint("value")) == value) }
            #expect(reader.remaining == 0)
        }
    }

    /// Bad bytes and the typed error each gives; the offset is left where it was.
    static let failures: [(String, [UInt8], Varint.Failure)] = [
        ("empty", [], .truncated(offset: 0)),
        ("a continuation byte and nothing after it", [0x80], .truncated(offset: 1)),
        ("UInt64.max without its last byte", Array(repeating: 0xFF, count: 9), .truncated(offset: 9)),
        ("a redundant zero byte (overlong 0)", [0x80, 0x00], .notMinimal(offset: 0)),
        ("an overlong 1", [0x81, 0x80, 0x00], .notMinimal(offset: 0)),
        ("a tenth byte above 1 (65 bits)", Array(repeating: 0xFF, count: 9) + [0x02], .overflow(offset: 0)),
        ("eleven bytes", Array(repeating: 0x80, count: 10) + [0x01], .overflow(offset: 0)),
    ]

    @Test func badBytesThrowATypedErrorAndLeaveTheOffset() {
        for (name, bytes, expected) in Self.failures {
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                #expect(throws: expected, "\(name)") { try Varint.read(buffer, at: &offset) }
                #expect(offset == 0, "\(name)")
            }
        }
    }

    @Test func theStoreReaderNamesTheFieldOfABadVarint() {
        for (name, bytes, expected) in Self.failures {
            bytes.withUnsafeBytes { buffer in
                var reader = ByteReader(buffer)
                do throws(DecodingFailure) {
                    _ = try reader.varint("head version")
                    Issue.record("\(name): read")
                } catch {
                    #expect(error.reason.contains("head version"), "\(name): \(error.reason)")
                    switch expected {
                    case .truncated: #expect(error.reason.hasPrefix("truncated"), "\(name)")
                    case .overflow: #expect(error.reason.contains("overflows 64 bits"), "\(name)")
                    case .notMinimal: #expect(error.reason.contains("redundant zero byte"), "\(name)")
                    }
                }
            }
        }
    }

    @Test func everyErrorSaysWhere() {
        #expect(Varint.Failure.truncated(offset: 3).description.contains("byte 3"))
        #expect(Varint.Failure.overflow(offset: 4).description.contains("byte 4"))
        #expect(Varint.Failure.notMinimal(offset: 5).description.contains("byte 5"))
    }
}

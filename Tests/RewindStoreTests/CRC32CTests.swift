import RewindBaseTestSupport
@_spi(Internals) import RewindStore
import Testing

@Suite("CRC32C")
struct CRC32CTests {
    // Vectors from RFC 3720 (iSCSI), appendix B.4, and the common check value.
    @Test func matchesKnownVectors() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum((0..<32).map { UInt8($0) }) == 0x46DD_794E)
        #expect(CRC32C.checksum((0..<32).map { UInt8(31 - $0) }) == 0x113F_DB5C)
        #expect(CRC32C.checksum([]) == 0)
    }

    @Test func continuingOverPartsEqualsTheWhole() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        for split in [0, 1, 7, 8, 9, 500, 999, 1000] {
            let first = CRC32C.checksum(Array(bytes[..<split]))
            #expect(CRC32C.checksum(Array(bytes[split...]), continuing: first) == CRC32C.checksum(bytes))
        }
    }
}

@Suite("CRC32C hardware and software agree")
struct CRC32CImplementationTests {
    @Test func theHardwareAndSoftwareChecksumsAreEqualOnRandomBuffers() {
        var random = SeededRandom(seed: 0xC0FFEE)
        let bytes = (0..<4096).map { _ in UInt8.random(in: .min ... .max, using: &random) }
        bytes.withUnsafeBytes { all in
            for _ in 0..<2_000 {
                // Every length up to a few hundred bytes, at every alignment.
                let start = Int.random(in: 0..<16, using: &random)
                let count = Int.random(in: 0...600, using: &random)
                let slice = UnsafeRawBufferPointer(rebasing: all[start..<(start + count)])
                let previous = UInt32.random(in: .min ... .max, using: &random)
                #expect(CRC32C.checksum(slice) == CRC32C.softwareChecksum(slice))
                #expect(
                    CRC32C.checksum(slice, continuing: previous)
                        == CRC32C.softwareChecksum(slice, continuing: previous))
            }
        }
    }

    @Test func theSoftwareChecksumMatchesTheKnownVectors() {
        func software(_ bytes: [UInt8]) -> UInt32 { bytes.withUnsafeBytes { CRC32C.softwareChecksum($0) } }
        #expect(software(Array("123456789".utf8)) == 0xE306_9283)
        #expect(software([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(software((0..<32).map { UInt8($0) }) == 0x46DD_794E)
        #expect(software([]) == 0)
    }
}

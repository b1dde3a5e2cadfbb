import CRC32CHardware

/// CRC-32C (Castagnoli, reflected polynomial `0x82F63B78`).
///
/// Used as the checksum of every encoded record. Known value: `"123456789"` → `0xE3069283`.
/// Computed with the CPU's CRC-32C instruction when it has one (SSE 4.2 `crc32` on x86_64, the
/// ARMv8 CRC32 extension on arm64; see ``usesHardware``), otherwise by slicing-by-8 tables
/// (``softwareChecksum(_:continuing:)``); both give the same values.
@_spi(Internals) public enum CRC32C {
    /// Whether `checksum(_:continuing:)` uses the CPU's instruction.
    public static let usesHardware: Bool = rewind_crc32c_hardware_available() != 0

    /// Eight 256-entry tables, table `k` at `k * 256`.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for n in 0..<256 {
            var crc = UInt32(n)
            for _ in 0..<8 {
                crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1
            }
            tables[n] = crc
        }
        for k in 1..<8 {
            for n in 0..<256 {
                let previous = tables[(k - 1) * 256 + n]
                tables[k * 256 + n] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The CRC-32C of `bytes`, continuing from `crc` (the checksum of the bytes before, or 0).
    public static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        guard usesHardware, let base = bytes.baseAddress else {
            return softwareChecksum(bytes, continuing: crc)
        }
        return ~rewind_crc32c_hardware_update(~crc, base, bytes.count)
    }

    /// The CRC-32C of `bytes`, continuing from `crc`, by slicing-by-8 tables (no CPU
    /// instruction): the reference `checksum(_:continuing:)` must agree with.
    public static func softwareChecksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        tables.withUnsafeBufferPointer { table in
            var crc = ~crc
            var offset = 0
            let count = bytes.count
            while count - offset >= 8 {
                let low = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) ^ crc
                let high = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
                crc =
                    table[7 * 256 + Int(low & 0xFF)]
                    ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)]
                    ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)]
                    ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[1 * 256 + Int((high >> 16) & 0xFF)]
                    ^ table[Int(high >> 24)]
                offset += 8
            }
            while offset < count {
                crc = table[Int((crc ^ UInt32(bytes[offset])) & 0xFF)] ^ (crc >> 8)
                offset += 1
            }
            return ~crc
        }
    }

    /// The CRC-32C of `bytes`, continuing from `crc` (the checksum of the bytes before, or 0).
    public static func checksum(_ bytes: [UInt8], continuing crc: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0, continuing: crc) }
    }
}

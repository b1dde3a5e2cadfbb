/// The binary encoding of a ``TransitionRecord`` (the value of the `log` database).
///
/// Format 1, in order (integers little-endian; "varint" is unsigned LEB128; "string" and "bytes"
/// are a varint byte count then the bytes):
///
/// | Field | Encoding |
/// |---|---|
/// | format version | 1 byte, `1` |
/// | flags | 1 byte; bit 0: an origin follows the state data |
/// | sequence | varint |
/// | version | varint |
/// | timestamp | 8 bytes, Int64 microseconds since 1970 |
/// | session, machine, definition, event | 4 strings |
/// | source, target | each a varint count then strings |
/// | navigation | a varint count, then per operation a 1 byte tag (0 none, 1 push, 2 pop, 3 popToRoot, 4 popTo, 5 replace, 6 setRoot) and a string screen for tags 1, 4, 5, 6 |
/// | payload, state data | 2 bytes fields |
/// | origin (if flagged) | string session, varint version |
/// | checksum | 4 bytes, CRC-32C of every byte before it |
public enum RecordCodec {
    /// The record format this code writes and the newest it reads.
    public static let formatVersion: UInt8 = 1

    private static let originFlag: UInt8 = 1

    /// Appends the encoding of a record to `buffer` (which the caller clears and reuses).
    static func encode(
        sequence: UInt64, session: SessionID, version: UInt64, transition: Transition,
        into buffer: inout [UInt8]
    ) {
        let start = buffer.count
        buffer.append(formatVersion)
        buffer.append(transition.origin == nil ? 0 : originFlag)
        buffer.appendVarint(sequence)
        buffer.appendVarint(version)
        buffer.appendLittleEndian(transition.timestamp.microsecondsSince1970)
        buffer.appendString(session.rawValue)
        buffer.appendString(transition.machine)
        buffer.appendString(transition.definition)
        buffer.appendString(transition.event)
        buffer.appendVarint(UInt64(transition.source.count))
        for path in transition.source { buffer.appendString(path) }
        buffer.appendVarint(UInt64(transition.target.count))
        for path in transition.target { buffer.appendString(path) }
        buffer.appendVarint(UInt64(transition.navigation.count))
        for operation in transition.navigation {
            appendNavigation(operation, to: &buffer)
        }
        buffer.appendBytes(transition.payload)
        buffer.appendBytes(transition.stateData)
        if let origin = transition.origin {
            buffer.appendString(origin.session.rawValue)
            buffer.appendVarint(origin.version)
        }
        let checksum = buffer.withUnsafeBytes { bytes in
            CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[start...]))
        }
        buffer.appendLittleEndian(checksum)
    }

    /// The encoding of `record`.
    public static func encode(_ record: TransitionRecord) -> [UInt8] {
        var buffer: [UInt8] = []
        encode(sequence: record.sequence, session: record.session, version: record.version,
               transition: record.transition, into: &buffer)
        return buffer
    }

    /// Decodes the record stored under global sequence `sequence`, reading from a borrowed buffer
    /// (e.g. LMDB's memory map) without copying it first.
    ///
    /// - Throws: ``StoreError/corruptedRecord(sequence:reason:)`` naming `sequence` when the bytes
    ///   are truncated, fail the checksum, have an unknown format version, hold invalid fields or
    ///   belong to another sequence. It never traps on bad input.
    public static func decode(_ bytes: UnsafeRawBufferPointer, sequence: UInt64) throws -> TransitionRecord {
        try decodeChecked(bytes, sequence: sequence)
    }

    /// Decodes the record stored under `sequence` from a byte array (see the buffer variant).
    public static func decode(_ bytes: [UInt8], sequence: UInt64) throws -> TransitionRecord {
        try bytes.withUnsafeBytes { try decode($0, sequence: sequence) }
    }

    private static func decodeChecked(_ bytes: UnsafeRawBufferPointer, sequence: UInt64) throws -> TransitionRecord {
        // One parser for both: the view checks every field, then copies them out.
        try RecordView(bytes, sequence: sequence).record()
    }

    private static func appendNavigation(_ operation: NavigationOperation, to buffer: inout [UInt8]) {
        switch operation {
        case .none: buffer.append(0)
        case .push(let screen): buffer.append(1); buffer.appendString(screen)
        case .pop: buffer.append(2)
        case .popToRoot: buffer.append(3)
        case .popTo(let screen): buffer.append(4); buffer.appendString(screen)
        case .replace(let screen): buffer.append(5); buffer.appendString(screen)
        case .setRoot(let screen): buffer.append(6); buffer.appendString(screen)
        }
    }

    static func sessionID(_ text: String) throws(DecodingFailure) -> SessionID {
        do {
            return try SessionID(text)
        } catch {
            throw DecodingFailure(reason: "invalid session id \(text.debugDescription)")
        }
    }

    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}

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
        do {
            return try decodeChecked(bytes, sequence: sequence)
        } catch let failure as DecodingFailure {
            throw StoreError.corruptedRecord(sequence: sequence, reason: failure.reason)
        }
    }

    /// Decodes the record stored under `sequence` from a byte array (see the buffer variant).
    public static func decode(_ bytes: [UInt8], sequence: UInt64) throws -> TransitionRecord {
        try bytes.withUnsafeBytes { try decode($0, sequence: sequence) }
    }

    private static func decodeChecked(_ bytes: UnsafeRawBufferPointer, sequence: UInt64) throws -> TransitionRecord {
        guard let format = bytes.first else {
            throw DecodingFailure(reason: "the record is empty")
        }
        guard format == formatVersion else {
            throw DecodingFailure(reason: "unknown record format version \(format) (this code reads version \(formatVersion))")
        }
        guard bytes.count >= 6 else {
            throw DecodingFailure(reason: "truncated: \(bytes.count) bytes is shorter than any record")
        }
        let body = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - 4)])
        let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 4, as: UInt32.self))
        let computed = CRC32C.checksum(body)
        guard stored == computed else {
            throw DecodingFailure(reason: "checksum mismatch (stored \(hex(stored)), computed \(hex(computed)))")
        }

        var reader = ByteReader(body)
        _ = try reader.byte("format version")
        let flags = try reader.byte("flags")
        guard flags & ~originFlag == 0 else {
            throw DecodingFailure(reason: "unknown flags \(flags)")
        }
        let storedSequence = try reader.varint("sequence")
        guard storedSequence == sequence else {
            throw DecodingFailure(reason: "the record says it is sequence \(storedSequence)")
        }
        let version = try reader.varint("version")
        guard version > 0 else { throw DecodingFailure(reason: "session version 0") }
        let timestamp = Timestamp(microsecondsSince1970: try reader.int64LittleEndian("timestamp"))
        let session = try sessionID(try reader.string("session"))
        let machine = try reader.string("machine")
        let definition = try reader.string("definition")
        let event = try reader.string("event")
        let source = try reader.strings("source")
        let target = try reader.strings("target")
        let navigationCount = try reader.varint("navigation count")
        guard navigationCount <= UInt64(reader.remaining) else {
            throw DecodingFailure(reason: "navigation count \(navigationCount) exceeds the record's size")
        }
        var navigation: [NavigationOperation] = []
        navigation.reserveCapacity(Int(navigationCount))
        for _ in 0..<navigationCount {
            navigation.append(try readNavigation(from: &reader))
        }
        let payload = try reader.bytes("payload")
        let stateData = try reader.bytes("state data")
        var origin: RecordOrigin?
        if flags & originFlag != 0 {
            let originSession = try sessionID(try reader.string("origin session"))
            origin = RecordOrigin(session: originSession, version: try reader.varint("origin version"))
        }
        guard reader.remaining == 0 else {
            throw DecodingFailure(reason: "\(reader.remaining) unexpected bytes after the last field")
        }
        return TransitionRecord(
            sequence: sequence, session: session, version: version, timestamp: timestamp,
            machine: machine, definition: definition, event: event, source: source, target: target,
            navigation: navigation, payload: payload, stateData: stateData, origin: origin)
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

    private static func readNavigation(from reader: inout ByteReader) throws(DecodingFailure) -> NavigationOperation {
        switch try reader.byte("navigation") {
        case 0: return .none
        case 1: return .push(try reader.string("navigation screen"))
        case 2: return .pop
        case 3: return .popToRoot
        case 4: return .popTo(try reader.string("navigation screen"))
        case 5: return .replace(try reader.string("navigation screen"))
        case 6: return .setRoot(try reader.string("navigation screen"))
        case let tag: throw DecodingFailure(reason: "unknown navigation tag \(tag)")
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

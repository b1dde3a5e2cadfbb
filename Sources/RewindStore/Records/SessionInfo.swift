/// What the store knows about a session (the value of the `sessions` database).
public struct SessionInfo: Sendable, Hashable, Codable {
    /// The session.
    public var session: SessionID
    /// The session's last version (its number of versions: they run from 1).
    public var headVersion: UInt64
    /// The global sequence of the session's last record.
    public var headSequence: UInt64
    /// The machine of the session's last record.
    public var machine: String
    /// The number of records of the session.
    public var recordCount: UInt64
    /// The timestamp of the session's first record.
    public var created: Timestamp
    /// The timestamp of the session's last record.
    public var updated: Timestamp
    /// The origin of the session's first record, when the session is a fork.
    public var origin: RecordOrigin?

    /// Creates a session description.
    public init(
        session: SessionID, headVersion: UInt64, headSequence: UInt64, machine: String,
        recordCount: UInt64, created: Timestamp, updated: Timestamp, origin: RecordOrigin?
    ) {
        self.session = session
        self.headVersion = headVersion
        self.headSequence = headSequence
        self.machine = machine
        self.recordCount = recordCount
        self.created = created
        self.updated = updated
        self.origin = origin
    }
}

/// The binary encoding of a ``SessionInfo`` (the session id is the key, not in the value):
/// format byte `1`, flags byte (bit 0: origin), varint head version, varint head sequence,
/// varint record count, Int64 LE created and updated (µs since 1970), string machine, then
/// string origin session and varint origin version when flagged, then a CRC-32C (4 bytes LE).
enum SessionInfoCodec {
    static let formatVersion: UInt8 = 1
    private static let originFlag: UInt8 = 1

    static func encode(_ info: SessionInfo, into buffer: inout [UInt8]) {
        let start = buffer.count
        buffer.append(formatVersion)
        buffer.append(info.origin == nil ? 0 : originFlag)
        buffer.appendVarint(info.headVersion)
        buffer.appendVarint(info.headSequence)
        buffer.appendVarint(info.recordCount)
        buffer.appendLittleEndian(info.created.microsecondsSince1970)
        buffer.appendLittleEndian(info.updated.microsecondsSince1970)
        buffer.appendString(info.machine)
        if let origin = info.origin {
            buffer.appendString(origin.session.rawValue)
            buffer.appendVarint(origin.version)
        }
        let checksum = buffer.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        buffer.appendLittleEndian(checksum)
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, session: SessionID) throws -> SessionInfo {
        do {
            guard bytes.count >= 6 else { throw DecodingFailure(reason: "truncated: \(bytes.count) bytes") }
            guard bytes[0] == formatVersion else {
                throw DecodingFailure(reason: "unknown session entry format \(bytes[0])")
            }
            let body = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - 4)])
            let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 4, as: UInt32.self))
            guard stored == CRC32C.checksum(body) else { throw DecodingFailure(reason: "checksum mismatch") }
            var reader = ByteReader(body)
            _ = try reader.byte("format")
            let flags = try reader.byte("flags")
            let headVersion = try reader.varint("head version")
            let headSequence = try reader.varint("head sequence")
            let recordCount = try reader.varint("record count")
            let created = Timestamp(microsecondsSince1970: try reader.int64LittleEndian("created"))
            let updated = Timestamp(microsecondsSince1970: try reader.int64LittleEndian("updated"))
            let machine = try reader.string("machine")
            var origin: RecordOrigin?
            if flags & originFlag != 0 {
                let originSession = try RecordCodec.sessionID(try reader.string("origin session"))
                origin = RecordOrigin(session: originSession, version: try reader.varint("origin version"))
            }
            guard reader.remaining == 0 else { throw DecodingFailure(reason: "unexpected trailing bytes") }
            return SessionInfo(
                session: session, headVersion: headVersion, headSequence: headSequence, machine: machine,
                recordCount: recordCount, created: created, updated: updated, origin: origin)
        } catch let failure as DecodingFailure {
            throw StoreError.corruptedEntry(
                database: StoreLayout.sessions, key: "'\(session)'", reason: failure.reason)
        }
    }
}

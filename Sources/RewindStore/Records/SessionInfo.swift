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
    /// The version the session's history begins at when it was trimmed (`Engine.trimHistory`):
    /// the stored snapshot at this version is the session's base, and its records run from this
    /// version to the head. `nil` when the session keeps its whole history (from version 1).
    public var baseVersion: UInt64?

    /// The first version the store holds a record (and a state) of: ``baseVersion`` or 1.
    public var firstVersion: UInt64 { baseVersion ?? 1 }

    /// Creates a session description.
    public init(
        session: SessionID, headVersion: UInt64, headSequence: UInt64, machine: String,
        recordCount: UInt64, created: Timestamp, updated: Timestamp, origin: RecordOrigin?,
        baseVersion: UInt64? = nil
    ) {
        self.session = session
        self.headVersion = headVersion
        self.headSequence = headSequence
        self.machine = machine
        self.recordCount = recordCount
        self.created = created
        self.updated = updated
        self.origin = origin
        self.baseVersion = baseVersion
    }
}

/// A session's entry in the `sessions` database: what ``SessionInfo`` says, plus the global
/// sequences of the session's latest versions that no `session-index` block holds yet.
struct SessionHead: Sendable, Hashable {
    var info: SessionInfo
    /// The sequences of versions `info.headVersion - recent.count + 1 ... info.headVersion`, in
    /// order: `info.headVersion % StoreLayout.indexBlockSize` of them (store format 2).
    var recent: [UInt64]

    /// The first version `recent` holds (one past the last full index block).
    var firstRecentVersion: UInt64 { info.headVersion - UInt64(recent.count) + 1 }

    /// The head of a session that has no records yet, about to take its first at `timestamp`.
    static func empty(_ session: SessionID, created: Timestamp, origin: RecordOrigin?) -> SessionHead {
        SessionHead(
            info: SessionInfo(
                session: session, headVersion: 0, headSequence: 0, machine: "", recordCount: 0,
                created: created, updated: created, origin: origin),
            recent: [])
    }

    /// Makes the head of a session with no records yet begin at version `base` (its history
    /// trimmed before it): its next record is version `base`. The versions of `base`'s index
    /// block below it get placeholder sequences (0, which the entry's decoder accepts only there):
    /// a trimmed session's index is never read below its base, and the block stays aligned on
    /// ``StoreLayout/indexBlockSize``.
    mutating func begin(at base: UInt64) {
        precondition(info.headVersion == 0 && base > 1, "only a session with no records begins at a base above 1")
        info.headVersion = base - 1
        info.baseVersion = base
        recent = Array(repeating: 0, count: Int((base - 1) % UInt64(StoreLayout.indexBlockSize)))
    }

    /// Moves the head to its next version, the record at global `sequence`. Returns `true` when
    /// that version completes an index block: ``recent`` then holds the block's
    /// ``StoreLayout/indexBlockSize`` sequences, to be written to (or already in) the
    /// `session-index` before ``startNextBlock()``.
    mutating func advance(sequence: UInt64, machine: String, timestamp: Timestamp) -> Bool {
        info.headVersion += 1
        info.headSequence = sequence
        info.recordCount += 1
        // Assigned, not compared first: a name read back from the store has storage of its own,
        // and comparing it with the draft's (the same name, other storage) read both strings for
        // every record (120 instructions; callgrind, Benchmarks/HISTORY.md 2026-11-30). Once
        // assigned, the two share storage and the assignment is a retain and a release.
        info.machine = machine
        info.updated = timestamp
        recent.append(sequence)
        return recent.count == StoreLayout.indexBlockSize
    }

    /// Empties ``recent`` once its full block is in the `session-index`.
    mutating func startNextBlock() {
        recent.removeAll(keepingCapacity: true)
    }
}

/// The binary encoding of a session's entry (the session id is the key, not in the value).
///
/// Format 2 (store format 2): format byte `2`, flags byte (bit 0: origin), varint head version,
/// varint head sequence, varint record count, Int64 LE created and updated (µs since 1970), string
/// machine, then string origin session and varint origin version when flagged, then the recent
/// sequences (``SessionHead/recent``: varint count, the first as a varint, each next one as the
/// varint difference to the one before), then a CRC-32C (4 bytes LE) of everything before it.
/// Flags bit 1 (store format 5): the session's history was trimmed, and its varint base version
/// follows the origin (``SessionInfo/baseVersion``); the recent sequences of versions below the
/// base may be 0 (placeholders of a session that began at its base: an imported or forked trimmed
/// session). Other flag bits are refused as corruption.
/// Format 1 (store format 1, read only to migrate) is the same without the recent sequences.
enum SessionInfoCodec {
    static let formatVersion: UInt8 = 2
    /// The format of store format 1's entries, which had no recent sequences.
    static let formatVersion1: UInt8 = 1
    private static let originFlag: UInt8 = 1
    /// The entry holds a base version (store format 5).
    private static let baseFlag: UInt8 = 2

    static func encode(_ head: SessionHead, into buffer: inout [UInt8]) {
        encode(head.info, recent: head.recent, format: formatVersion, into: &buffer)
    }

    /// Encodes `info` in `format` (1 writes no recent sequences; tests build format 1 stores).
    static func encode(_ info: SessionInfo, recent: [UInt64], format: UInt8, into buffer: inout [UInt8]) {
        let start = buffer.count
        buffer.append(format)
        buffer.append((info.origin == nil ? 0 : originFlag) | (info.baseVersion == nil ? 0 : baseFlag))
        buffer.putVarint(info.headVersion)
        buffer.putVarint(info.headSequence)
        buffer.putVarint(info.recordCount)
        buffer.putLittleEndian(info.created.microsecondsSince1970)
        buffer.putLittleEndian(info.updated.microsecondsSince1970)
        buffer.putString(info.machine)
        if let origin = info.origin {
            buffer.putString(origin.session.rawValue)
            buffer.putVarint(origin.version)
        }
        if let baseVersion = info.baseVersion { buffer.putVarint(baseVersion) }
        if format >= 2 {
            buffer.putVarint(UInt64(recent.count))
            var previous: UInt64 = 0
            for sequence in recent {
                buffer.putVarint(sequence &- previous)
                previous = sequence
            }
        }
        let checksum = buffer.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        buffer.putLittleEndian(checksum)
    }

    /// Decodes an entry of store format `storeFormat` (a format 1 entry has no recent sequences:
    /// they are in the session index until the store is migrated).
    static func decode(
        _ bytes: UnsafeRawBufferPointer, session: SessionID, storeFormat: UInt8 = formatVersion
    ) throws -> SessionHead {
        do {
            guard bytes.count >= 6 else { throw DecodingFailure(reason: "truncated: \(bytes.count) bytes") }
            guard bytes[0] == storeFormat else {
                throw DecodingFailure(reason: "unknown session entry format \(bytes[0]) (expected \(storeFormat))")
            }
            let body = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - 4)])
            let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 4, as: UInt32.self))
            guard stored == CRC32C.checksum(body) else { throw DecodingFailure(reason: "checksum mismatch") }
            var reader = ByteReader(body)
            _ = try reader.byte("format")
            let flags = try reader.byte("flags")
            guard flags & ~(originFlag | baseFlag) == 0 else { throw DecodingFailure(reason: "unknown flags \(flags)") }
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
            var baseVersion: UInt64?
            if flags & baseFlag != 0 {
                let base = try reader.varint("base version")
                guard base >= 1, base <= headVersion else {
                    throw DecodingFailure(reason: "base version \(base) outside 1…\(headVersion)")
                }
                baseVersion = base
            }
            var recent: [UInt64] = []
            if storeFormat >= 2 {
                let count = try reader.varint("recent sequence count")
                guard count == headVersion % UInt64(StoreLayout.indexBlockSize) else {
                    throw DecodingFailure(
                        reason:
                            "\(count) recent sequences for head version \(headVersion) (expected \(headVersion % UInt64(StoreLayout.indexBlockSize)))"
                    )
                }
                recent.reserveCapacity(Int(count))
                var sequence: UInt64 = 0
                let firstRecent = headVersion - count + 1
                while recent.count < Int(count) {
                    let delta = try reader.varint("recent sequence")
                    // A session that began at its base (imported or forked trimmed) holds
                    // placeholder sequences 0 for the versions of its base's block below the base.
                    if let baseVersion, firstRecent + UInt64(recent.count) < baseVersion, sequence == 0, delta == 0 {
                        recent.append(0)
                        continue
                    }
                    let (sum, overflow) = sequence.addingReportingOverflow(delta)
                    guard !overflow, sum > sequence else {
                        throw DecodingFailure(reason: "recent sequences out of order")
                    }
                    sequence = sum
                    recent.append(sequence)
                }
                if let last = recent.last, last != headSequence {
                    throw DecodingFailure(
                        reason: "the last recent sequence \(last) is not the head sequence \(headSequence)")
                }
            }
            guard reader.remaining == 0 else { throw DecodingFailure(reason: "unexpected trailing bytes") }
            let info = SessionInfo(
                session: session, headVersion: headVersion, headSequence: headSequence, machine: machine,
                recordCount: recordCount, created: created, updated: updated, origin: origin,
                baseVersion: baseVersion)
            return SessionHead(info: info, recent: recent)
        } catch let failure as DecodingFailure {
            throw StoreError.corruptedEntry(
                database: StoreLayout.sessions, key: "'\(session.excerpt)'", reason: failure.reason)
        }
    }
}

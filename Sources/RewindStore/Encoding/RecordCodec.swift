import RewindValues

/// The binary encoding of a ``TransitionRecord`` (the value of the `log` database).
///
/// Format 1, in order (integers little-endian; "varint" is unsigned LEB128; "string" and "bytes"
/// are a varint byte count then the bytes):
///
/// | Field | Encoding |
/// |---|---|
/// | format version | 1 byte, `1` |
/// | flags | 1 byte; bit 0: an origin follows the state data; bit 1: redacted (``TransitionDraft/redacted``); other bits 0 |
/// | sequence | varint |
/// | version | varint |
/// | timestamp | 8 bytes, Int64 microseconds since 1970 |
/// | session, machine, definition, event | 4 strings |
/// | source, target | each a varint count then strings |
/// | navigation | a varint count, then per operation a 1 byte tag (``NavigationTag``: 0 none, 1 push, 2 pop, 3 popToRoot, 4 popTo, 5 replace, 6 setRoot) and a string screen for tags 1, 4, 5, 6 |
/// | payload, state data | 2 bytes fields |
/// | origin (if flagged) | string session, varint version |
/// | checksum | 4 bytes, CRC-32C of every byte before it |
@_spi(Internals) public enum RecordCodec {
    /// The record format this code writes and the newest it reads.
    public static let formatVersion: UInt8 = 1

    /// Flags bit 0: an origin follows the state data.
    static let originFlag: UInt8 = 1
    /// Flags bit 1: redaction changed what the session held before the record was written. Code
    /// from before the bit refuses such a record as "unknown flags" (a typed corrupted record).
    static let redactedFlag: UInt8 = 2

    /// Appends the encoding of a record to `buffer` (which the caller clears and reuses).
    static func encode(
        sequence: UInt64, session: SessionID, version: UInt64, transition: TransitionDraft,
        into buffer: inout [UInt8]
    ) {
        let start = buffer.count
        withUnsafePointer(to: transition) { transition in
            let size = encodedSize(sequence: sequence, session: session, version: version, transition: transition)
            buffer.append(contentsOf: repeatElement(0, count: size))
            buffer.withUnsafeMutableBytes { bytes in
                encode(
                    sequence: sequence, session: session, version: version, transition: transition,
                    into: UnsafeMutableRawBufferPointer(rebasing: bytes[start...]))
            }
        }
    }

    /// The size of a record's encoding, checksum included.
    ///
    /// The draft is read through a pointer, here and in ``encode(sequence:session:version:transition:into:)``,
    /// one field at a time: passed by value from where the store's append holds it, the whole
    /// draft was copied before each call that writes memory (the compiler cannot tell that the
    /// write does not reach the draft): its strings and arrays retained and released, ~480
    /// instructions a record (callgrind, Benchmarks/HISTORY.md, 2026-11-29).
    static func encodedSize(
        sequence: UInt64, session: SessionID, version: UInt64, transition: UnsafePointer<TransitionDraft>
    ) -> Int {
        var counter = ByteCounter()
        putFields(sequence: sequence, session: session, version: version, transition: transition, to: &counter)
        return counter.count + 4
    }

    /// Encodes a record into `destination`, exactly ``encodedSize(sequence:session:version:transition:)``
    /// bytes (e.g. the space LMDB reserved for it in its map), checksum included.
    @inline(__always)  // into the store's append, once per record (the draft read through its pointer)
    static func encode(
        sequence: UInt64, session: SessionID, version: UInt64, transition: UnsafePointer<TransitionDraft>,
        into destination: UnsafeMutableRawBufferPointer
    ) {
        precondition(destination.count >= 4, "a record's encoding is more than 4 bytes")
        var writer = RawByteWriter(UnsafeMutableRawBufferPointer(rebasing: destination[..<(destination.count - 4)]))
        putFields(sequence: sequence, session: session, version: version, transition: transition, to: &writer)
        precondition(writer.offset == destination.count - 4, "the record's encoding is not the size counted")
        let checksum = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: destination[..<writer.offset]))
        withUnsafeBytes(of: checksum.littleEndian) { checksumBytes in
            UnsafeMutableRawBufferPointer(rebasing: destination[writer.offset...]).copyMemory(from: checksumBytes)
        }
    }

    /// Puts every field of a record but the checksum, in format 1's order.
    @inline(__always)
    private static func putFields<Sink: ByteSink>(
        sequence: UInt64, session: SessionID, version: UInt64, transition: UnsafePointer<TransitionDraft>,
        to sink: inout Sink
    ) {
        sink.put(formatVersion)
        sink.put((transition.pointee.origin == nil ? 0 : originFlag) | (transition.pointee.redacted ? redactedFlag : 0))
        sink.putVarint(sequence)
        sink.putVarint(version)
        sink.putLittleEndian(transition.pointee.timestamp.microsecondsSince1970)
        sink.putString(session.rawValue)
        sink.putString(transition.pointee.machine)
        sink.putString(transition.pointee.definition)
        sink.putString(transition.pointee.event)
        sink.putVarint(UInt64(transition.pointee.source.count))
        for path in transition.pointee.source { sink.putString(path) }
        sink.putVarint(UInt64(transition.pointee.target.count))
        for path in transition.pointee.target { sink.putString(path) }
        sink.putVarint(UInt64(transition.pointee.navigation.count))
        for operation in transition.pointee.navigation {
            sink.put(NavigationTag(operation).rawValue)
            if let screen = operation.screen { sink.putString(screen) }
        }
        sink.putBytes(transition.pointee.payload)
        sink.putBytes(transition.pointee.stateData)
        if let origin = transition.pointee.origin {
            sink.putString(origin.session.rawValue)
            sink.putVarint(origin.version)
        }
    }

    /// The encoding of `record`.
    public static func encode(_ record: TransitionRecord) -> [UInt8] {
        var buffer: [UInt8] = []
        encode(
            sequence: record.sequence, session: record.session, version: record.version,
            transition: record.transition, into: &buffer)
        return buffer
    }

    /// Checks the record stored under global sequence `sequence` as every reader does before it
    /// reads a field (``decode(_:sequence:)`` and a session's export among them), decoding
    /// nothing: the floor of a reader that refuses a damaged record (the archive benchmark's
    /// baseline of a checking export, Benchmarks/README.md item 16).
    ///
    /// - Throws: ``StoreError/corruptedRecord(sequence:reason:)``, exactly when
    ///   ``decode(_:sequence:)`` throws it.
    public static func check(_ bytes: UnsafeRawBufferPointer, sequence: UInt64) throws(StoreError) {
        _ = try RecordView(bytes, sequence: sequence)
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

    /// Decodes the record stored under `sequence`, as `decode(_:sequence:)` does, taking its
    /// strings from `recent` where it holds them: the decoder of a walk over many records.
    package static func decode(
        _ bytes: UnsafeRawBufferPointer, sequence: UInt64, reusing recent: inout RecentStrings
    ) throws -> TransitionRecord {
        try RecordView(bytes, sequence: sequence).record(reusing: &recent)
    }

    static func sessionID(_ text: String) throws(DecodingFailure) -> SessionID {
        do {
            return try SessionID(text)
        } catch {
            throw DecodingFailure(reason: "invalid session id '\(DisplayText.excerpt(text))'")
        }
    }

    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}

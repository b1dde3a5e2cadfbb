import Foundation
import RewindValues

/// A checked record read in place: the encoded bytes of a ``TransitionRecord`` (usually inside
/// LMDB's memory map) with the position of every field, so that a fold reading a few fields
/// allocates nothing.
///
/// Creating a view checks everything ``RecordCodec/decode(_:sequence:)`` checks — format version,
/// CRC-32C, every length and count, UTF-8 of every string, navigation tags, the session id, no
/// trailing bytes — with the same errors. Its fields are then read without further checks.
///
/// A view borrows its buffer: it is valid only while the buffer is (inside the closure of
/// ``StoreReadTransaction/forEachRecordView(from:_:)``); copy what must outlive it (``record()``
/// or the `String` accessors).
package struct RecordView {
    /// A field's place in ``body``.
    package typealias Field = Range<Int>

    /// The record's bytes without the trailing checksum.
    package let body: UnsafeRawBufferPointer
    /// The global sequence.
    package let sequence: UInt64
    /// The version within the session.
    package let version: UInt64
    /// The wall-clock time of the transition.
    package let timestamp: Timestamp
    /// The session id's UTF-8 (a valid id).
    package let sessionField: Field
    /// The machine's name.
    package let machineField: Field
    /// The machine definition's content version.
    package let definitionField: Field
    /// The event.
    package let eventField: Field
    /// The state configuration before.
    package let source: StringList
    /// The state configuration after.
    package let target: StringList
    private let navigationStart: Int
    /// The number of navigation operations.
    package let navigationCount: Int
    /// The event's payload.
    package let payloadField: Field
    /// The target state's data.
    package let stateDataField: Field
    private let originSessionField: Field?
    private let originVersion: UInt64
    /// Whether the record's flags say it was redacted (``TransitionDraft/redacted``).
    package let redacted: Bool

    /// Checks the record stored under global sequence `sequence` and locates its fields.
    ///
    /// - Throws: ``StoreError/corruptedRecord(sequence:reason:)`` naming `sequence`, exactly when
    ///   ``RecordCodec/decode(_:sequence:)`` throws it.
    package init(_ bytes: UnsafeRawBufferPointer, sequence: UInt64) throws(StoreError) {
        do {
            self = try RecordView(checking: bytes, sequence: sequence)
        } catch {
            throw StoreError.corruptedRecord(sequence: sequence, reason: error.reason)
        }
    }

    private init(checking bytes: UnsafeRawBufferPointer, sequence: UInt64) throws(DecodingFailure) {
        guard let format = bytes.first else {
            throw DecodingFailure(reason: "the record is empty")
        }
        guard format == RecordCodec.formatVersion else {
            throw DecodingFailure(
                reason: "unknown record format version \(format) (this code reads version \(RecordCodec.formatVersion))"
            )
        }
        guard bytes.count >= 6 else {
            throw DecodingFailure(reason: "truncated: \(bytes.count) bytes is shorter than any record")
        }
        let body = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - 4)])
        let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 4, as: UInt32.self))
        let computed = CRC32C.checksum(body)
        guard stored == computed else {
            throw DecodingFailure(
                reason: "checksum mismatch (stored \(RecordCodec.hex(stored)), computed \(RecordCodec.hex(computed)))")
        }

        var reader = ByteReader(body)
        _ = try reader.byte("format version")
        let flags = try reader.byte("flags")
        guard flags & ~(RecordCodec.originFlag | RecordCodec.redactedFlag) == 0 else {
            throw DecodingFailure(reason: "unknown flags \(flags)")
        }
        let storedSequence = try reader.varint("sequence")
        guard storedSequence == sequence else {
            throw DecodingFailure(reason: "the record says it is sequence \(storedSequence)")
        }
        let version = try reader.varint("version")
        guard version > 0 else { throw DecodingFailure(reason: "session version 0") }
        let timestamp = Timestamp(microsecondsSince1970: try reader.int64LittleEndian("timestamp"))
        let session = try reader.stringRange("session")
        try Self.checkSessionID(UnsafeRawBufferPointer(rebasing: body[session]))
        let machine = try reader.stringRange("machine")
        let definition = try reader.stringRange("definition")
        let event = try reader.stringRange("event")
        let source = try reader.stringList("source")
        let target = try reader.stringList("target")
        let navigationCount = try reader.varint("navigation count")
        guard navigationCount <= UInt64(reader.remaining) else {
            throw DecodingFailure(reason: "navigation count \(navigationCount) exceeds the record's size")
        }
        let navigationStart = reader.offset
        for _ in 0..<navigationCount {
            let byte = try reader.byte("navigation")
            guard let tag = NavigationTag(rawValue: byte) else {
                throw DecodingFailure(reason: "unknown navigation tag \(byte)")
            }
            if tag.hasScreen { _ = try reader.stringRange("navigation screen") }
        }
        let payload = try reader.bytesRange("payload")
        let stateData = try reader.bytesRange("state data")
        var originSession: Field?
        var originVersion: UInt64 = 0
        if flags & RecordCodec.originFlag != 0 {
            let field = try reader.stringRange("origin session")
            try Self.checkSessionID(UnsafeRawBufferPointer(rebasing: body[field]))
            originSession = field
            originVersion = try reader.varint("origin version")
        }
        guard reader.remaining == 0 else {
            throw DecodingFailure(reason: "\(reader.remaining) unexpected bytes after the last field")
        }
        self.body = body
        self.sequence = sequence
        self.version = version
        self.timestamp = timestamp
        self.sessionField = session
        self.machineField = machine
        self.definitionField = definition
        self.eventField = event
        self.source = StringList(body: body, start: source.start, count: source.count)
        self.target = StringList(body: body, start: target.start, count: target.count)
        self.navigationStart = navigationStart
        self.navigationCount = Int(navigationCount)
        self.payloadField = payload
        self.stateDataField = stateData
        self.originSessionField = originSession
        self.originVersion = originVersion
        self.redacted = flags & RecordCodec.redactedFlag != 0
    }

    /// The rules of ``SessionID`` on UTF-8 bytes (already checked to be valid UTF-8): not empty, at
    /// most ``SessionID/maximumByteCount`` bytes, no NUL.
    private static func checkSessionID(_ bytes: UnsafeRawBufferPointer) throws(DecodingFailure) {
        guard let base = bytes.baseAddress, !bytes.isEmpty, bytes.count <= SessionID.maximumByteCount,
            memchr(base, 0, bytes.count) == nil
        else {
            throw DecodingFailure(
                reason: "invalid session id '\(DisplayText.excerpt(String(decoding: bytes, as: UTF8.self)))'")
        }
    }

    // MARK: Fields

    /// The bytes of `field`.
    @inline(__always)
    package func bytes(of field: Field) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: body[field])
    }

    /// A copy of the string at `field` (checked UTF-8).
    @inline(__always)
    package func string(_ field: Field) -> String {
        String(decoding: bytes(of: field), as: UTF8.self)
    }

    /// The session id's UTF-8.
    package var sessionBytes: UnsafeRawBufferPointer { bytes(of: sessionField) }
    /// The machine's name as UTF-8.
    package var machineBytes: UnsafeRawBufferPointer { bytes(of: machineField) }
    /// The event as UTF-8.
    package var eventBytes: UnsafeRawBufferPointer { bytes(of: eventField) }
    /// The target state's data.
    package var stateDataBytes: UnsafeRawBufferPointer { bytes(of: stateDataField) }

    /// A copy of the session id.
    package var session: SessionID { SessionID(checked: string(sessionField)) }

    /// A copy of the origin (the session and version it was forked from), when the record has one.
    package var origin: RecordOrigin? {
        guard let originSessionField else { return nil }
        return RecordOrigin(session: SessionID(checked: string(originSessionField)), version: originVersion)
    }

    /// A copy of the whole record.
    package func record() -> TransitionRecord {
        var none = RecentStrings(remembering: false)
        return record(reusing: &none)
    }

    /// A copy of the whole record, its strings and lists taken from `recent` where it holds them
    /// (a walk over many records keeps one: see ``RecentStrings``).
    package func record(reusing recent: inout RecentStrings) -> TransitionRecord {
        var navigation: [NavigationOperation] = []
        if navigationCount > 0 {
            navigation.reserveCapacity(navigationCount)
            forEachNavigation { tag, screen in navigation.append(tag.operation { recent.string(screen) }) }
        }
        return TransitionRecord(
            sequence: sequence, session: SessionID(checked: recent.string(sessionBytes)), version: version,
            timestamp: timestamp, machine: recent.string(machineBytes),
            definition: recent.string(bytes(of: definitionField)), event: recent.string(eventBytes),
            source: recent.list(source), target: recent.list(target), navigation: navigation,
            payload: Array(bytes(of: payloadField)), stateData: Array(bytes(of: stateDataField)),
            origin: origin, redacted: redacted)
    }

    /// Calls `visit` with each navigation operation's tag and the UTF-8 of its screen (empty for
    /// a tag without one), in order.
    @inline(__always)
    package func forEachNavigation(_ visit: (NavigationTag, UnsafeRawBufferPointer) throws -> Void) rethrows {
        var reader = UncheckedReader(body: body, offset: navigationStart)
        for _ in 0..<navigationCount {
            // Tags were checked by the initialiser.
            let tag = NavigationTag(rawValue: reader.byte()) ?? .none
            try visit(tag, tag.hasScreen ? bytes(of: reader.field()) : UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }

    // MARK: Lists

    /// A checked list of strings inside a record, read in place.
    package struct StringList: Sequence {
        let body: UnsafeRawBufferPointer
        let start: Int
        /// The number of strings.
        package let count: Int

        /// Whether the list is empty.
        package var isEmpty: Bool { count == 0 }

        /// Iterates the strings' UTF-8 bytes.
        package func makeIterator() -> Iterator {
            Iterator(reader: UncheckedReader(body: body, offset: start), left: count)
        }

        /// The list's strings as stored, each after its length (the bytes that tell one list
        /// from another: ``RecentStrings`` keys lists by them).
        package var encodedBytes: UnsafeRawBufferPointer {
            var reader = UncheckedReader(body: body, offset: start)
            for _ in 0..<count { _ = reader.field() }
            return UnsafeRawBufferPointer(rebasing: body[start..<reader.offset])
        }

        /// Whether the list holds exactly the UTF-8 of `strings`, in order.
        package func equalsUTF8(of strings: [String]) -> Bool {
            guard strings.count == count else { return false }
            var iterator = makeIterator()
            for string in strings {
                guard let bytes = iterator.next(), bytes.equalsUTF8(of: string) else { return false }
            }
            return true
        }

        /// The UTF-8 bytes of each string in turn.
        package struct Iterator: IteratorProtocol {
            var reader: UncheckedReader
            var left: Int

            @inline(__always)
            package mutating func next() -> UnsafeRawBufferPointer? {
                guard left > 0 else { return nil }
                left -= 1
                let field = reader.field()
                return UnsafeRawBufferPointer(rebasing: reader.body[field])
            }
        }
    }

    /// Reads fields already checked by the view's initialiser.
    struct UncheckedReader {
        let body: UnsafeRawBufferPointer
        var offset: Int

        @inline(__always)
        mutating func byte() -> UInt8 {
            defer { offset += 1 }
            return body[offset]
        }

        @inline(__always)
        mutating func field() -> Range<Int> {
            // The view's initialiser read this length already (with the same decoder), so it
            // cannot fail here.
            let count = Int(truncatingIfNeeded: (try? Varint.read(body, at: &offset)) ?? 0)
            defer { offset += count }
            return offset..<offset + count
        }
    }
}

extension UnsafeRawBufferPointer {
    /// Whether these bytes are exactly the UTF-8 of `string`.
    @inline(__always)
    package func equalsUTF8(of string: String) -> Bool {
        var string = string
        return string.withUTF8 { utf8 in
            guard utf8.count == count else { return false }
            guard let left = baseAddress, let right = utf8.baseAddress else { return true }
            return memcmp(left, right, count) == 0
        }
    }
}

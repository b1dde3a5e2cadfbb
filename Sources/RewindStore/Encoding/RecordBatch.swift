import Foundation

/// A run of a store's records in the store's own record encoding (each with its CRC-32C), and the
/// machine definitions they name: what a device uploads to the fleet server (the body of
/// `POST /v1/stores/{storeID}/records`), written by `RewindSync`'s uploader and read by the server,
/// so both sides share this one codec.
///
/// Binary framing, media type `application/vnd.rewind.batch`; integers little-endian:
///
/// | field | encoding |
/// |---|---|
/// | magic | 4 bytes, `RWB1`, or `RWB2` when the batch carries bases |
/// | first sequence | UInt64: the global sequence of the first record |
/// | record count | UInt32 |
/// | definition count | UInt32 |
/// | definitions | per definition: machine name, content version (each UInt32 byte count + UTF-8), JSON document (UInt32 byte count + bytes) |
/// | base count | `RWB2` only: UInt32 |
/// | bases | `RWB2` only: per base: session id (UInt32 byte count + UTF-8), version (UInt64), snapshot (UInt32 byte count + the snapshot's JSON) |
/// | records | per record: UInt32 byte count + the record's encoding; record *i* has sequence first + *i* |
///
/// A base is the state a trimmed session's history begins at, sent with the batch that holds the
/// session's first kept record (a session whose history the device trimmed before uploading it,
/// or imported from a trimmed archive): the server replays the session from it. A batch without
/// bases is written `RWB1`, byte for byte as before bases existed, so servers that predate them
/// read every batch of untrimmed sessions.
///
/// Nothing may follow the last record: a body cut anywhere (in a count, a definition, a base, a
/// record) or with bytes after it is rejected whole.
public struct RecordBatch: Sendable, Equatable {
    /// The media type of the framing.
    public static let mediaType = "application/vnd.rewind.batch"
    /// The first four bytes of a batch without bases.
    public static let magic: [UInt8] = Array("RWB1".utf8)
    /// The first four bytes of a batch with bases.
    public static let magicWithBases: [UInt8] = Array("RWB2".utf8)

    /// A machine definition a record of the batch names.
    public struct Definition: Sendable, Equatable {
        /// The machine's name (as records name it).
        public var machine: String
        /// The definition's content version: the hex SHA-256 of `document`.
        public var contentVersion: String
        /// The JSON interchange document, byte for byte as the device stores it.
        public var document: [UInt8]

        /// A definition from its parts.
        public init(machine: String, contentVersion: String, document: [UInt8]) {
            self.machine = machine
            self.contentVersion = contentVersion
            self.document = document
        }
    }

    /// The state a trimmed session's history begins at (see the type's documentation).
    public struct Base: Sendable, Equatable {
        /// The session's id.
        public var session: String
        /// The version the session's history begins at: its first record's.
        public var version: UInt64
        /// The session's snapshot at `version`, as the device stores it (JSON).
        public var snapshot: [UInt8]

        /// A base from its parts.
        public init(session: String, version: UInt64, snapshot: [UInt8]) {
            self.session = session
            self.version = version
            self.snapshot = snapshot
        }
    }

    /// The global sequence of the first record.
    public var firstSequence: UInt64
    /// The records' encodings, in sequence order.
    public var records: [[UInt8]]
    /// The definitions the records name (those the server may not hold yet).
    public var definitions: [Definition]
    /// The bases of the trimmed sessions whose first kept record the batch holds.
    public var bases: [Base]

    /// A batch from its parts.
    public init(firstSequence: UInt64, records: [[UInt8]], definitions: [Definition], bases: [Base] = []) {
        self.firstSequence = firstSequence
        self.records = records
        self.definitions = definitions
        self.bases = bases
    }

    /// The framing's bytes.
    public func encoded() -> [UInt8] {
        var bytes = bases.isEmpty ? Self.magic : Self.magicWithBases
        func put<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        func putBytes(_ value: some Collection<UInt8>) {
            put(UInt32(value.count))
            bytes.append(contentsOf: value)
        }
        put(firstSequence)
        put(UInt32(records.count))
        put(UInt32(definitions.count))
        for definition in definitions {
            putBytes(definition.machine.utf8)
            putBytes(definition.contentVersion.utf8)
            putBytes(definition.document)
        }
        if !bases.isEmpty {
            put(UInt32(bases.count))
            for base in bases {
                putBytes(base.session.utf8)
                put(base.version)
                putBytes(base.snapshot)
            }
        }
        for record in records { putBytes(record) }
        return bytes
    }

    /// A body that is not a well-formed batch: what was wrong and at which byte.
    public struct FramingError: Error, Equatable, CustomStringConvertible {
        /// The byte offset in the body where the problem was found.
        public var offset: Int
        /// What was wrong.
        public var reason: String
        /// Describes the error.
        public var description: String { "malformed batch at byte \(offset): \(reason)" }
    }

    /// Parses a body.
    /// - Throws: ``FramingError`` for a wrong magic, a cut body, invalid UTF-8 in a name, a
    ///   record count of more records than bytes, a base of version 0, or bytes after the last
    ///   record.
    public init(decoding body: some Collection<UInt8>) throws(FramingError) {
        var reader = Reader(bytes: Array(body))
        let magic = try reader.take(4, what: "the magic")
        let withBases = magic.elementsEqual(Self.magicWithBases)
        guard withBases || magic.elementsEqual(Self.magic) else {
            throw FramingError(offset: 0, reason: "it does not start with RWB1 or RWB2 (not a Rewind batch)")
        }
        firstSequence = try reader.integer(UInt64.self, what: "the first sequence")
        guard firstSequence >= 1 else {
            throw FramingError(offset: 4, reason: "the first sequence is 0 (sequences start at 1)")
        }
        let recordCount = Int(try reader.integer(UInt32.self, what: "the record count"))
        let definitionCount = Int(try reader.integer(UInt32.self, what: "the definition count"))
        // Each record or definition takes at least 4 bytes: a count the body cannot hold is a lie.
        guard recordCount + definitionCount <= reader.remaining / 4 else {
            throw FramingError(
                offset: reader.offset,
                reason:
                    "it announces \(recordCount) records and \(definitionCount) definitions but has \(reader.remaining) bytes left"
            )
        }
        var definitions: [Definition] = []
        definitions.reserveCapacity(definitionCount)
        for index in 0..<definitionCount {
            let machine = try reader.string(what: "definition \(index)'s machine name")
            let version = try reader.string(what: "definition \(index)'s content version")
            let document = try reader.lengthPrefixed(what: "definition \(index)'s document")
            definitions.append(Definition(machine: machine, contentVersion: version, document: document))
        }
        var bases: [Base] = []
        if withBases {
            let baseCount = Int(try reader.integer(UInt32.self, what: "the base count"))
            // Each base takes at least 16 bytes.
            guard baseCount <= reader.remaining / 16 else {
                throw FramingError(
                    offset: reader.offset,
                    reason: "it announces \(baseCount) bases but has \(reader.remaining) bytes left")
            }
            bases.reserveCapacity(baseCount)
            for index in 0..<baseCount {
                let session = try reader.string(what: "base \(index)'s session id")
                let at = reader.offset
                let version = try reader.integer(UInt64.self, what: "base \(index)'s version")
                guard version >= 1 else {
                    throw FramingError(
                        offset: at, reason: "base \(index) is at version 0 (a base is a version of the session)")
                }
                let snapshot = try reader.lengthPrefixed(what: "base \(index)'s snapshot")
                bases.append(Base(session: session, version: version, snapshot: snapshot))
            }
        }
        var records: [[UInt8]] = []
        records.reserveCapacity(recordCount)
        for index in 0..<recordCount {
            records.append(try reader.lengthPrefixed(what: "record \(index)"))
        }
        guard reader.remaining == 0 else {
            throw FramingError(offset: reader.offset, reason: "\(reader.remaining) bytes follow the last record")
        }
        self.records = records
        self.definitions = definitions
        self.bases = bases
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var remaining: Int { bytes.count - offset }

        mutating func take(_ count: Int, what: String) throws(FramingError) -> ArraySlice<UInt8> {
            guard count <= remaining else {
                throw FramingError(
                    offset: offset, reason: "the body ends inside \(what) (\(count) bytes needed, \(remaining) left)")
            }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }

        mutating func integer<T: FixedWidthInteger>(_ type: T.Type, what: String) throws(FramingError) -> T {
            var value: T = 0
            for (shift, byte) in try take(MemoryLayout<T>.size, what: what).enumerated() {
                value |= T(byte) << (8 * shift)
            }
            return value
        }

        mutating func lengthPrefixed(what: String) throws(FramingError) -> [UInt8] {
            let count = Int(try integer(UInt32.self, what: "the length of \(what)"))
            return Array(try take(count, what: what))
        }

        mutating func string(what: String) throws(FramingError) -> String {
            let start = offset
            let bytes = try lengthPrefixed(what: what)
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw FramingError(offset: start, reason: "\(what) is not valid UTF-8")
            }
            return text
        }
    }
}

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
/// | magic | 4 bytes, `RWB1` |
/// | first sequence | UInt64: the global sequence of the first record |
/// | record count | UInt32 |
/// | definition count | UInt32 |
/// | definitions | per definition: machine name, content version (each UInt32 byte count + UTF-8), JSON document (UInt32 byte count + bytes) |
/// | records | per record: UInt32 byte count + the record's encoding; record *i* has sequence first + *i* |
///
/// Nothing may follow the last record: a body cut anywhere (in a count, a definition, a record)
/// or with bytes after it is rejected whole.
public struct RecordBatch: Sendable, Equatable {
    /// The media type of the framing.
    public static let mediaType = "application/vnd.rewind.batch"
    /// The first four bytes.
    public static let magic: [UInt8] = Array("RWB1".utf8)

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

    /// The global sequence of the first record.
    public var firstSequence: UInt64
    /// The records' encodings, in sequence order.
    public var records: [[UInt8]]
    /// The definitions the records name (those the server may not hold yet).
    public var definitions: [Definition]

    /// A batch from its parts.
    public init(firstSequence: UInt64, records: [[UInt8]], definitions: [Definition]) {
        self.firstSequence = firstSequence
        self.records = records
        self.definitions = definitions
    }

    /// The framing's bytes.
    public func encoded() -> [UInt8] {
        var bytes = Self.magic
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
    ///   record count of more records than bytes, or bytes after the last record.
    public init(decoding body: some Collection<UInt8>) throws(FramingError) {
        var reader = Reader(bytes: Array(body))
        guard try reader.take(4, what: "the magic").elementsEqual(Self.magic) else {
            throw FramingError(offset: 0, reason: "it does not start with RWB1 (not a Rewind batch)")
        }
        firstSequence = try reader.integer(UInt64.self, what: "the first sequence")
        guard firstSequence >= 1 else {
            throw FramingError(offset: 4, reason: "the first sequence is 0 (sequences start at 1)")
        }
        let recordCount = Int(try reader.integer(UInt32.self, what: "the record count"))
        let definitionCount = Int(try reader.integer(UInt32.self, what: "the definition count"))
        // Each record or definition takes at least 4 bytes: a count the body cannot hold is a lie.
        guard recordCount + definitionCount <= reader.remaining / 4 else {
            throw FramingError(offset: reader.offset, reason: "it announces \(recordCount) records and \(definitionCount) definitions but has \(reader.remaining) bytes left")
        }
        var definitions: [Definition] = []
        definitions.reserveCapacity(definitionCount)
        for index in 0..<definitionCount {
            let machine = try reader.string(what: "definition \(index)'s machine name")
            let version = try reader.string(what: "definition \(index)'s content version")
            let document = try reader.lengthPrefixed(what: "definition \(index)'s document")
            definitions.append(Definition(machine: machine, contentVersion: version, document: document))
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
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var remaining: Int { bytes.count - offset }

        mutating func take(_ count: Int, what: String) throws(FramingError) -> ArraySlice<UInt8> {
            guard count <= remaining else {
                throw FramingError(offset: offset, reason: "the body ends inside \(what) (\(count) bytes needed, \(remaining) left)")
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

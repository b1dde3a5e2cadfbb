import Foundation
import RewindMachine
@_spi(Internals) import RewindStore

extension SessionArchive {
    /// Writes an archive's lines in their order — the header, one line per record, the trailer —
    /// keeping the CRC-32C of every line written for the trailer. The one writer of archives: a
    /// device's export (``LogReplay/exportSession(_:)``) and the streaming export of a log read
    /// asynchronously (``SessionArchiveStream``, the fleet server's) write the same bytes for the
    /// same session.
    ///
    /// The header names the definitions the records were written under and their count, so a
    /// writer knows both before the first record (``definitionVersions(_:)`` collects the first).
    struct Writer {
        private let encoder = SessionArchive.encoder()
        /// The CRC-32C of every line written so far.
        private var checksum: UInt32 = 0
        /// The records the header announced.
        private let announced: UInt64
        /// The records written so far.
        private(set) var written: UInt64 = 0
        /// Bytes written and not taken yet (``take()``).
        private(set) var pending: [UInt8] = []
        /// The room a record line is written in (``RecordLineFields/writeLineJSON(recordedState:into:room:)``).
        private var room: [UInt8] = []

        /// Writes `header`.
        init(_ header: Header) throws {
            announced = header.records
            try write(header)
        }

        /// Writes the header of the archive of `session` of machine `machine`
        /// (``header(session:machine:definitions:records:base:)``).
        init(
            session: SessionID, machine: String, definitions: [Header.Definition], records: UInt64,
            base: SessionSnapshot?
        ) throws {
            try self.init(
                Self.header(session: session, machine: machine, definitions: definitions, records: records, base: base))
        }

        /// The header of the archive of `session` of machine `machine`: its `records` records were
        /// written under `definitions`; a trimmed session's begin at `base` (format version 3).
        static func header(
            session: SessionID, machine: String, definitions: [Header.Definition], records: UInt64,
            base: SessionSnapshot?
        ) -> Header {
            Header(
                format: SessionArchive.format,
                formatVersion: base == nil ? SessionArchive.formatVersion : SessionArchive.trimmedFormatVersion,
                session: session.rawValue, machine: machine, definitions: definitions, records: records,
                base: base.map { Header.Base(version: $0.version, state: $0.jsonValue) })
        }

        /// Writes the line of `record`, with the state it recorded when it is a redacted record
        /// written with a snapshot of its own (`recordedState`, see `StepRecording+Redaction`).
        mutating func append(_ record: TransitionRecord, recordedState: SessionSnapshot?) throws {
            try append(Record(record, recordedState: recordedState))
        }

        /// Writes record line `line` (``SessionArchive/Record/writeJSON(into:)``).
        mutating func append(_ line: Record) throws {
            // The room is taken out for the line (`writeLine` holds `self`).
            var room: [UInt8] = []
            swap(&room, &self.room)
            defer { swap(&room, &self.room) }
            try writeLine { try line.writeLineJSON(recordedState: line.recordedState, into: &$0, room: &room) }
            written += 1
        }

        /// The whole archive: what was written (the header), record lines written apart (a
        /// device's export, which learns the header from the records it writes), and the
        /// trailer, copied once into the archive's bytes (the lines copied into ``pending`` first
        /// were a second copy of the whole archive).
        mutating func archive(appending lines: RecordLines) throws -> Data {
            checksum = lines.bytes.withUnsafeBytes { CRC32C.checksum($0, continuing: checksum) }
            written += lines.count
            let head = take()
            try finish()
            let trailer = take()
            var archive = Data(capacity: head.count + lines.bytes.count + trailer.count)
            archive.append(contentsOf: head)
            archive.append(contentsOf: lines.bytes)
            archive.append(contentsOf: trailer)
            return archive
        }

        /// Writes the trailer. Its callers write as many records as the header announced: the
        /// device's export counts them in the same read transaction, a rewrite copies the header's
        /// count, and the stream's page reader throws before a session's records fall short.
        mutating func finish() throws {
            assert(written == announced, "\(written) records written, the header announced \(announced)")
            let checksum = self.checksum
            try write(Trailer(end: SessionArchive.format, records: written, checksum: SessionArchive.hex(checksum)))
        }

        /// The bytes written since the last call.
        mutating func take() -> [UInt8] {
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }

        /// Writes the line of a header or a trailer, encoded by `JSONEncoder` (once an archive).
        private mutating func write(_ body: some Encodable) throws {
            let encoded = try encoder.encode(body)
            writeLine { $0.append(contentsOf: encoded) }
        }

        /// Writes the envelope line of the body `writeBody` appends (``appendLine(to:_:)``) and
        /// adds it to the running checksum.
        private mutating func writeLine(_ writeBody: (inout [UInt8]) throws -> Void) rethrows {
            let start = pending.count
            try Self.appendLine(to: &pending, writeBody)
            checksum = pending[start...].withUnsafeBytes { CRC32C.checksum($0, continuing: checksum) }
        }

        /// Appends to `bytes` the envelope line (newline included) of the body `writeBody`
        /// appends. The body is written in place; its checksum is filled in after it. When
        /// `writeBody` throws, nothing of the line stays.
        static func appendLine(to bytes: inout [UInt8], _ writeBody: (inout [UInt8]) throws -> Void) rethrows {
            let start = bytes.count
            // The envelope's start with eight zeros for the checksum, in one piece.
            bytes.append(contentsOf: SessionArchive.envelopeHead)
            let digits = start + SessionArchive.envelopeStart.count
            let body = bytes.count
            do {
                try writeBody(&bytes)
            } catch {
                bytes.removeSubrange(start...)
                throw error
            }
            let crc = bytes[body...].withUnsafeBytes { CRC32C.checksum($0) }
            SessionArchive.writeHex(crc, into: &bytes, at: digits)
            bytes.append(UInt8(ascii: "}"))
            bytes.append(UInt8(ascii: "\n"))
        }

        /// The content versions `versions` names in the order they first appear, each once: the
        /// definitions a header lists.
        static func definitionVersions(_ versions: some Sequence<String>) -> [String] {
            var listed: [String] = []
            var seen: Set<String> = []
            for version in versions where seen.insert(version).inserted { listed.append(version) }
            return listed
        }

        /// The header's entry for definition `version` of `machine`, from its stored document.
        ///
        /// - Throws: ``SessionArchiveError/missingDefinition(machine:version:)`` when none is
        ///   stored, ``EngineError/corruptedEntry(what:reason:cause:)`` when it is not JSON.
        static func definition(_ document: [UInt8]?, machine: String, version: String) throws -> Header.Definition {
            guard let document else { throw SessionArchiveError.missingDefinition(machine: machine, version: version) }
            do {
                return Header.Definition(version: version, document: try JSONValue(jsonBytes: document))
            } catch {
                throw EngineError.corruptedEntry(
                    what: "the stored definition \(machine)@\(version)", reason: String(describing: error),
                    cause: ErrorCause(error))
            }
        }
    }
}

extension SessionArchive {
    /// Record lines written before their archive's header, which they tell: the content versions
    /// of the definitions the records were written under, in the order they first appear, and
    /// the count. A device's export writes a session in one pass this way (then
    /// ``Writer/archive(appending:)``) instead of reading its records twice.
    struct RecordLines {
        /// The lines, newlines included.
        private(set) var bytes: [UInt8] = []
        /// The records written.
        private(set) var count: UInt64 = 0
        /// Each record's definition where it changes from the record before (see
        /// ``Writer/definitionVersions(_:)``).
        private(set) var definitionChanges: [String] = []
        /// The room a line is written in (``RecordLineFields/writeLineJSON(recordedState:into:room:)``).
        private var room: [UInt8] = []
        /// The records the caller will write (``init(expecting:)``).
        private let expected: UInt64

        /// Lines of about `expected` records: once the first is written, room is made for all of
        /// them at its size and a quarter more (grown by doubling, a session's lines were copied
        /// about twice more), up to ``maximumReservation``.
        init(expecting expected: UInt64) {
            self.expected = expected
        }

        /// The most room made ahead (256 MiB): a first line much longer than the others (a large
        /// payload) must not make room for a multiple of the archive; past it, the bytes grow by
        /// doubling.
        static let maximumReservation = 1 << 28

        /// Writes the line of `record`, as ``Writer/append(_:recordedState:)`` does.
        mutating func append(_ record: TransitionRecord, recordedState: SessionSnapshot?) throws {
            let line = Record(record, recordedState: recordedState)
            try Writer.appendLine(to: &bytes) {
                try line.writeLineJSON(recordedState: line.recordedState, into: &$0, room: &room)
            }
            if definitionChanges.last != record.definition { definitionChanges.append(record.definition) }
            count += 1
            reserveAfterTheFirstLine()
        }

        private mutating func reserveAfterTheFirstLine() {
            guard count == 1, expected > 1 else { return }
            let (total, overflow) = (bytes.count + bytes.count / 4).multipliedReportingOverflow(
                by: Int(clamping: expected))
            bytes.reserveCapacity(overflow ? Self.maximumReservation : min(total, Self.maximumReservation))
        }

        /// Writes the line of the stored record `view` read in place, a record that recorded no
        /// state of its own (not redacted: a redacted one goes through
        /// ``append(_:recordedState:)``), with no Swift value made for its fields.
        mutating func append(_ view: RecordView) throws {
            assert(!view.redacted, "a redacted record's line may carry its recorded state")
            try Writer.appendLine(to: &bytes) { try view.writeLineJSON(recordedState: nil, into: &$0, room: &room) }
            let definition = view.bytes(of: view.definitionField)
            if !(definitionChanges.last.map(definition.equalsUTF8(of:)) ?? false) {
                definitionChanges.append(String(decoding: definition, as: UTF8.self))
            }
            count += 1
            reserveAfterTheFirstLine()
        }
    }
}

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
            var line = Record(record)
            line.recordedState = recordedState?.jsonValue
            try append(line)
        }

        /// Writes record line `line`.
        mutating func append(_ line: Record) throws {
            try write(line)
            written += 1
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

        private mutating func write(_ body: some Encodable) throws {
            let start = pending.count
            try SessionArchive.appendLine(body, with: encoder, to: &pending)
            checksum = pending[start...].withUnsafeBytes { CRC32C.checksum($0, continuing: checksum) }
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

import Foundation
import RewindMachine
import RewindStore

/// The archive of one session (see ``SessionArchive``) of a log read asynchronously — a fleet
/// server's PostgreSQL (``AsyncTransitionLogReader``) — written a part at a time, so that an
/// answer never holds a whole session in memory: at most a page of records and a part of bytes.
/// Its bytes are those a device's ``LogReplay/exportSession(_:)`` writes for the same session
/// (both go through the one archive writer) but for the recorded state of a redacted record: a
/// device keeps it as a snapshot, which uploads do not carry, so a stream writes such a record's
/// line without `recordedState` (see docs/architecture/storage.md).
///
/// Making one (``init(_:from:)``) reads all that the archive's header needs — the session's head,
/// a trimmed session's base, the definitions its records were written under — so its errors come
/// before the first byte, while a server can still answer them with a status.
/// ``write(partSize:to:)`` then reads the records a page at a time. An error there (a damaged
/// record, a session erased meanwhile) ends the archive without its trailer, which no import
/// accepts: a cut archive is never taken for a whole one.
public struct SessionArchiveStream<Reader: AsyncTransitionLogReader>: Sendable {
    /// The log the archive is read from.
    public let reader: Reader
    /// The session's head when the stream was made: the archive holds its records up to it.
    public let info: SessionInfo
    /// A trimmed session's base (at ``SessionInfo/baseVersion``).
    private let base: SessionSnapshot?
    private let header: SessionArchive.Header
    private let logHead: UInt64

    /// Records read per page.
    static var pageSize: Int { SessionLog.pageSize }

    /// Reads what the header of the archive of `session` needs from `reader`; `nil` when the log
    /// holds no record of the session.
    ///
    /// - Throws: ``ReplayError/incompleteSession(_:reason:)`` for a trimmed session whose base
    ///   the log does not hold, ``SessionArchiveError/missingDefinition(machine:version:)``,
    ///   ``EngineError/corruptedEntry(what:reason:cause:)`` for a stored definition that is not
    ///   JSON, the reader's errors.
    public init?(_ session: SessionID, from reader: Reader) async throws {
        logHead = try await reader.headSequence()
        guard let info = try await reader.sessionInfo(for: session) else { return nil }
        base = try await reader.base(of: info)
        var definitions: [SessionArchive.Header.Definition] = []
        for version in try await reader.definitionVersions(of: session, fromVersion: info.firstVersion) {
            definitions.append(
                try SessionArchive.Writer.definition(
                    try await reader.storedDefinitionDocument(name: info.machine, version: version),
                    machine: info.machine, version: version))
        }
        self.reader = reader
        self.info = info
        header = SessionArchive.Writer.header(
            session: session, machine: info.machine, definitions: definitions,
            records: info.headVersion - min(info.headVersion, info.firstVersion - 1), base: base)
    }

    /// Writes the archive, handing `write` parts of about `partSize` bytes (a part ends with a
    /// line) in order; the last holds the trailer.
    ///
    /// - Throws: ``ReplayError/incompleteSession(_:reason:)`` when the log answers records that
    ///   are not the session's versions in order up to its head (an erasure since the stream was
    ///   made); the reader's errors; what `write` throws. The parts written before stay written:
    ///   they lack the trailer.
    public func write(partSize: Int = 1 << 16, to write: ([UInt8]) async throws -> Void) async throws {
        var writer = try SessionArchive.Writer(header)
        try await reader.pages(of: info) { page in
            // The page as a log: a redacted record's recorded state is found as in every replay.
            let log = SessionLog(info: info, logHead: logHead, base: base, records: page, definitionDocuments: [:])
            for record in page {
                try writer.append(record, recordedState: StepRecording.snapshot(writtenWith: record, in: log))
                if writer.pending.count >= partSize { try await write(writer.take()) }
            }
        }
        try writer.finish()
        try await write(writer.take())
    }
}

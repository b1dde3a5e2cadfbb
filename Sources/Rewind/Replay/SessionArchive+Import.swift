import Foundation
import RewindMachine
@_spi(Internals) import RewindStore
@_spi(Internals) import RewindValues

extension SessionArchive {
    /// A fully checked archive, ready to append.
    struct Contents {
        var header: Header
        /// The definitions by content version, parsed and checked against it.
        var definitions: [String: MachineDefinition]
        var transitions: [TransitionDraft]
        /// The states redacted records recorded (their lines' `recordedState`), by version.
        var recordedStates: [UInt64: SessionSnapshot] = [:]
        /// A trimmed session's base snapshot (format version 3): `transitions` are its versions
        /// from the base on.
        var base: SessionSnapshot?

        /// The version of the first of `transitions`: the base's, or 1.
        var firstVersion: UInt64 { base?.version ?? 1 }
        /// The version of the last of `transitions`.
        var headVersion: UInt64 { firstVersion - 1 + UInt64(transitions.count) }
    }

    /// The most UTF-8 bytes of the machine name an archive may carry: its definitions are stored
    /// under the name, a NUL and a 64-digit content version, and LMDB keys are at most 511 bytes.
    static let maximumMachineNameByteCount = 511 - 1 - 64

    /// Checks `archive` as ``Engine/importSession(_:as:)`` with the same `id` does before it
    /// writes anything — every line, and the exported session id when `id` is `nil` — without a
    /// store, so that a tool can refuse a truncated, altered or malformed archive before it opens
    /// (or creates) one.
    ///
    /// An archive that passes can still be refused by the import itself: when the store already
    /// holds the session (``EngineError/sessionExists(_:)``), or on the store's errors.
    ///
    /// - Returns: the session id the import would write: `id`, or the exported session's.
    /// - Throws: ``SessionArchiveError`` with the 1-based line at fault.
    @discardableResult
    public static func validate(_ archive: Data, as id: SessionID? = nil) throws -> SessionID {
        let contents = try parse(Array(archive))
        return try id ?? exportedSession(of: contents.header)
    }

    /// The session id `header` names, checked as a new session's id (``SessionID/init(new:)``:
    /// an archive of a session whose id has control characters imports only under another id).
    ///
    /// - Throws: ``SessionArchiveError/malformedLine(line:reason:)`` (line 1) when it is not a
    ///   valid new ``SessionID``.
    static func exportedSession(of header: Header) throws -> SessionID {
        do {
            return try SessionID(new: header.session)
        } catch {
            throw SessionArchiveError.malformedLine(
                line: 1, reason: "its session id is invalid: \(error)", cause: ErrorCause(error))
        }
    }

    /// Checks every line of `bytes` (see ``SessionArchive``) and returns its contents.
    static func parse(_ bytes: [UInt8]) throws -> Contents {
        var lines: [Range<Int>] = []
        var start = 0
        bytes.withUnsafeBufferPointer { buffer in
            // memchr: the newline search runs at memory speed (a byte-by-byte loop cost about
            // 1,200 instructions a record line).
            guard let base = buffer.baseAddress else { return }
            while start < buffer.count,
                let found = memchr(base + start, Int32(UInt8(ascii: "\n")), buffer.count - start)
            {
                let index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                lines.append(start..<index)
                start = index + 1
            }
        }
        let hasFragment = start < bytes.count
        try checkLineLengths(lines, fragment: hasFragment ? start..<bytes.count : nil)
        func missing(_ number: Int, _ what: String) -> SessionArchiveError {
            if hasFragment, number == lines.count + 1 {
                return .truncated(line: number, reason: "the line is cut short (it has no newline)")
            }
            return .truncated(line: number, reason: "the file ends after \(lines.count) complete lines, before \(what)")
        }
        func decode<Body>(line number: Int, _ read: (ArraySlice<UInt8>) throws -> Body) throws -> Body {
            let body = try SessionArchive.body(of: bytes[lines[number - 1]], number: number)
            do {
                return try read(body)
            } catch {
                throw SessionArchiveError.malformedLine(
                    line: number, reason: "its body does not decode: \(error)", cause: ErrorCause(error))
            }
        }

        // Line 1: the header and the definitions.
        guard !lines.isEmpty else { throw missing(1, "the header") }
        let header = try decode(line: 1) { try Header(jsonBody: $0) }
        guard header.format == format, readableFormatVersions.contains(header.formatVersion) else {
            throw SessionArchiveError.unsupportedFormat(format: header.format, version: header.formatVersion)
        }
        guard header.records > 0 else {
            throw SessionArchiveError.malformedLine(line: 1, reason: "it announces no records")
        }
        guard !header.machine.isEmpty else {
            throw SessionArchiveError.malformedLine(line: 1, reason: "its machine name is empty")
        }
        guard header.machine.utf8.count <= maximumMachineNameByteCount else {
            throw SessionArchiveError.malformedLine(
                line: 1,
                reason: "its machine name has \(header.machine.utf8.count) UTF-8 bytes, more than "
                    + "\(maximumMachineNameByteCount) (its definitions could not be stored under it)")
        }
        var definitions: [String: MachineDefinition] = [:]
        for entry in header.definitions {
            let definition: MachineDefinition
            do {
                definition = try MachineDefinition(jsonDocument: Data(try entry.document.jsonBytes()))
            } catch {
                throw SessionArchiveError.malformedLine(
                    line: 1, reason: "the definition \(entry.version.prefix(12)) does not decode: \(error)",
                    cause: ErrorCause(error))
            }
            guard definition.contentVersion == entry.version else {
                throw SessionArchiveError.malformedLine(
                    line: 1,
                    reason: "the definition \(entry.version.prefix(12)) has content version "
                        + "\(definition.contentVersion.prefix(12)): it was altered")
            }
            definitions[entry.version] = definition
        }
        var definedStates = DefinitionTable(definitions.mapValues(DefinedStates.init))

        let base = try checkedBase(of: header)
        let first = base?.version ?? 1

        // Lines 2…N+1: the records, versions 1…N (a trimmed session's: base…base+N-1).
        var transitions: [TransitionDraft] = []
        transitions.reserveCapacity(min(Int(clamping: header.records), lines.count))
        var recordedStates: [UInt64: SessionSnapshot] = [:]
        var version: UInt64 = first - 1
        var memory = RecordLineMemory()
        // The header's machine name as the lines' reader makes it: each record's name is then
        // the same string, compared by identity, not byte by byte (~130 instructions a record).
        var machineName = header.machine
        machineName = machineName.withUTF8 { memory.strings.string(UnsafeRawBufferPointer($0)) }
        var knownTargets = KnownTargets()
        while version - (first - 1) < header.records {
            version += 1
            let number = Int(clamping: version - first) + 2
            guard number <= lines.count else {
                throw missing(number, "record \(version - first + 1) of \(header.records)")
            }
            let record = try SessionArchive.record(
                ofLine: bytes[lines[number - 1]], number: number, formatVersion: header.formatVersion,
                remembering: &memory)
            guard record.version == version else {
                throw SessionArchiveError.versionGap(line: number, expected: version, found: record.version)
            }
            transitions.append(
                try transition(
                    of: record, line: number, machine: machineName,
                    states: definedStates.value(for: record.definition), known: &knownTargets))
            if let value = record.recordedState {
                let snapshot: SessionSnapshot
                do {
                    snapshot = try SessionSnapshot(jsonValue: value)
                } catch {
                    throw SessionArchiveError.malformedLine(
                        line: number, reason: "its recorded state does not decode: \(error)", cause: ErrorCause(error))
                }
                guard record.redacted, snapshot.version == version, snapshot.state.configuration == record.target else {
                    throw SessionArchiveError.malformedLine(
                        line: number,
                        reason: "its recorded state is not the state after a redacted record of version \(version)")
                }
                recordedStates[version] = snapshot
            }
        }

        // Line N+2: the trailer.
        let trailerNumber = Int(clamping: header.records) + 2
        guard trailerNumber <= lines.count else { throw missing(trailerNumber, "the trailer") }
        let trailer = try decode(line: trailerNumber) { try Trailer(jsonBody: $0) }
        guard trailer.end == format else {
            throw SessionArchiveError.trailerMismatch(line: trailerNumber, reason: "it is not a '\(format)' trailer")
        }
        guard trailer.records == header.records else {
            throw SessionArchiveError.trailerMismatch(
                line: trailerNumber, reason: "it counts \(trailer.records) records, the header \(header.records)")
        }
        let covered = bytes[0..<lines[trailerNumber - 2].upperBound + 1]
        let checksum = hex(covered.withUnsafeBytes { CRC32C.checksum($0) })
        guard trailer.checksum == checksum else {
            throw SessionArchiveError.trailerMismatch(
                line: trailerNumber,
                reason: "the lines before it have checksum \(checksum), the trailer says \(trailer.checksum)")
        }
        if lines.count > trailerNumber || hasFragment {
            throw SessionArchiveError.malformedLine(line: trailerNumber + 1, reason: "text follows the trailer")
        }
        return Contents(
            header: header, definitions: definitions, transitions: transitions, recordedStates: recordedStates,
            base: base)
    }

    /// The base snapshot of a trimmed session's archive (format version 3's `base`), checked: a
    /// version above 1 whose state decodes as a snapshot of that version; `nil` without a base.
    ///
    /// - Throws: ``SessionArchiveError/malformedLine(line:reason:cause:)`` (line 1).
    private static func checkedBase(of header: Header) throws -> SessionSnapshot? {
        guard let base = header.base else { return nil }
        guard header.formatVersion >= trimmedFormatVersion else {
            throw SessionArchiveError.malformedLine(
                line: 1, reason: "it has a base, which format version \(header.formatVersion) does not have")
        }
        guard base.version > 1, base.version <= UInt64.max - header.records else {
            throw SessionArchiveError.malformedLine(line: 1, reason: "its base version \(base.version) is out of range")
        }
        let snapshot: SessionSnapshot
        do {
            snapshot = try SessionSnapshot(jsonValue: base.state)
        } catch {
            throw SessionArchiveError.malformedLine(
                line: 1, reason: "its base state does not decode: \(error)", cause: ErrorCause(error))
        }
        guard snapshot.version == base.version else {
            throw SessionArchiveError.malformedLine(
                line: 1,
                reason: "its base state is of version \(snapshot.version), not of the base version \(base.version)")
        }
        return snapshot
    }

    /// The draft of `record` (line `number`), checked against the header's `machine` name and
    /// `states`, the states of the record's definition (`nil`: the header carries no such
    /// definition); the targets found known are remembered in `known`.
    private static func transition(
        of record: Record, line number: Int, machine: String, states: DefinedStates?, known: inout KnownTargets
    ) throws -> TransitionDraft {
        func malformed(_ reason: String) -> SessionArchiveError {
            .malformedLine(line: number, reason: reason)
        }
        guard record.machine == machine else {
            throw malformed("its machine '\(record.machine)' is not the header's '\(machine)'")
        }
        guard let states else {
            throw malformed("its definition \(record.definition.prefix(12)) is not in the header")
        }
        if !known.contains(record.target, under: record.definition) {
            if let unknown = states.unknownStates(in: record.target).first {
                throw SessionArchiveError.unknownState(
                    line: number, version: record.version, state: unknown, definition: record.definition)
            }
            known.insert(record.target, under: record.definition)
        }
        guard !record.event.isEmpty else { throw malformed("its event name is empty") }
        guard !record.target.isEmpty else { throw malformed("its target configuration is empty") }
        if let origin = record.origin, origin.version == 0 { throw malformed("its origin's version is 0") }
        return TransitionDraft(
            timestamp: Timestamp(microsecondsSince1970: record.timestamp), machine: record.machine,
            definition: record.definition, event: record.event, source: record.source, target: record.target,
            navigation: record.navigation, payload: record.payload, stateData: record.stateData,
            origin: record.origin, redacted: record.redacted)
    }
}

/// Target configurations an import found to hold only states of a definition, kept by their
/// list's storage: the line memory makes each list the lines repeat once, and each was looked up
/// state by state again for every record (a set lookup, a hash, per state: ~360 instructions a
/// record; callgrind, Benchmarks/HISTORY.md 2026-12-02). The lists are held here, so that the
/// storage of one cannot be reused for another list while it is compared against.
private struct KnownTargets {
    private var definition: String?
    private var lists: [[String]] = []
    /// The most lists held for one definition.
    private static let capacity = 32

    /// Whether `target` (this very list) was found known under `definition`.
    func contains(_ target: [String], under definition: String) -> Bool {
        guard definition == self.definition else { return false }
        let storage = target.withUnsafeBufferPointer { $0.baseAddress }
        return lists.contains { list in list.withUnsafeBufferPointer { $0.baseAddress } == storage }
    }

    /// Remembers that `target` holds only states of `definition`.
    mutating func insert(_ target: [String], under definition: String) {
        if definition != self.definition {
            self.definition = definition
            lists.removeAll(keepingCapacity: true)
        }
        if lists.count < Self.capacity { lists.append(target) }
    }
}

extension Engine {
    /// Imports a session archive (see ``SessionArchive``) as the session `id` (by default the
    /// exported session's id), with the definitions it carries.
    ///
    /// An archive of a trimmed session (format version 3) imports as a session whose history
    /// begins at the same base: its base snapshot is stored, its records keep their versions
    /// (base…head), and history, replay, resume and verify begin at the base as they do on the
    /// exporting device.
    ///
    /// Every line is checked first (checksums, format, versions 1…N without gaps, definitions
    /// against their content versions, each record's target states against its definition, the
    /// trailer's count and checksum); a truncated, altered or
    /// malformed archive is rejected with the 1-based number of the line at fault and nothing is
    /// written. Then the records, the definitions and snapshots (every
    /// ``EngineConfiguration/snapshotInterval`` versions, as far as the archive's definitions
    /// re-run the records without app bindings) are written in one group commit.
    ///
    /// - Throws: ``SessionArchiveError``, ``EngineError/sessionExists(_:)``, the store's errors.
    @discardableResult
    public func importSession(_ archive: Data, as id: SessionID? = nil) async throws -> SessionInfo {
        let contents = try SessionArchive.parse(Array(archive))
        let session = try id ?? SessionArchive.exportedSession(of: contents.header)
        if try store.sessionInfo(for: session) != nil { throw EngineError.sessionExists(session) }
        let machine = contents.header.machine
        var writes = contents.definitions.map { version, definition in
            AppendRequest.AuxiliaryWrite(
                database: .definitions, key: Self.definitionKey(name: machine, version: version),
                value: Array(definition.jsonDocument()))
        }
        if let base = contents.base {
            // A trimmed session begins at its base, whose snapshot is its state there.
            writes.append(
                AppendRequest.AuxiliaryWrite(
                    database: .snapshots, key: SessionSnapshot.key(session: session, version: base.version),
                    value: try base.encoded()))
        }
        writes += importedSnapshots(of: session, contents: contents)
        do {
            _ = try await commits.submit(
                AppendRequest(
                    session: session, expectedVersion: .noStream, transitions: contents.transitions,
                    auxiliaryWrites: writes, baseVersion: contents.base?.version))
        } catch StoreError.versionConflict {
            throw EngineError.sessionExists(session)
        }
        guard let info = try store.sessionInfo(for: session) else { throw EngineError.unknownSession(session) }
        return info
    }

    /// Imports the session archive in the file at `url` (see ``importSession(_:as:)``), read by
    /// ``SessionArchive/read(from:)`` (a line over ``SessionArchive/maximumLineBytes`` stops it).
    @discardableResult
    public func importSession(from url: URL, as id: SessionID? = nil) async throws -> SessionInfo {
        try await importSession(try SessionArchive.read(from: url), as: id)
    }

    /// Snapshots of an imported session every `snapshotInterval` versions, for as long as its
    /// records can be re-run (a registered machine or the archive's definitions without
    /// bindings): the archive's records replayed as a log of their own
    /// (`SessionSnapshot.rebuilt`, the records re-run as ``LogReplay`` re-runs them); an empty
    /// list when snapshots are off.
    private func importedSnapshots(
        of session: SessionID, contents: SessionArchive.Contents
    ) -> [AppendRequest.AuxiliaryWrite] {
        // The states redacted records recorded, whatever the interval: replay takes them.
        var writes: [AppendRequest.AuxiliaryWrite] = contents.recordedStates.keys.sorted().compactMap { version in
            guard let bytes = try? contents.recordedStates[version]?.encoded() else { return nil }
            return AppendRequest.AuxiliaryWrite(
                database: .snapshots, key: SessionSnapshot.key(session: session, version: version), value: bytes)
        }
        let interval = configuration.snapshotInterval
        guard interval > 0, !contents.transitions.isEmpty else { return writes }
        let log = SessionArchive.ContentsLog(session: session, contents: contents)
        // Boxed once: passed to each record's re-run as it was, a copy was boxed per record.
        let archive: any TransitionLogReader = log
        var machines = LogReplay(
            log: log, registeredByVersion: registeredMachinesByVersion(), bindings: Bindings(), coder: store.coder
        ).machines(for: contents.header.machine)
        // A record that cannot be re-run ends the snapshots there (an error, caught below).
        _ = try? SessionSnapshot.rebuilt(
            session, at: contents.headVersion, from: contents.base ?? .empty(definition: ""),
            records: log.visitRecords
        ) { record, snapshot in
            try machines.advance(&snapshot, by: record, in: archive)
            if record.version % interval == 0, contents.recordedStates[record.version] == nil,
                let bytes = try? snapshot.encoded()
            {
                writes.append(
                    AppendRequest.AuxiliaryWrite(
                        database: .snapshots, key: SessionSnapshot.key(session: session, version: record.version),
                        value: bytes))
            }
        }
        return writes
    }
}

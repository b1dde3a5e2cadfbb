import Foundation
import Rewind
@_spi(Internals) import RewindStore
import RewindTestSupport
import Testing

@Suite("Export and import")
struct SessionArchiveTests {
    /// The archive's lines, newlines dropped.
    private func lines(_ archive: Data) -> [String] {
        String(decoding: archive, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .dropLast().map(String.init)
    }

    private func archive(_ lines: [String]) -> Data {
        Data(lines.map { $0 + "\n" }.joined().utf8)
    }

    /// Re-checksums an envelope line after its body was changed.
    private func resealed(_ line: String) -> String {
        let body = Array(line.utf8.dropFirst(28).dropLast())
        let digits = String(CRC32C.checksum(body), radix: 16)
        return #"{"crc32c":""# + String(repeating: "0", count: 8 - digits.count) + digits + #"","body":"#
            + String(decoding: body, as: UTF8.self) + "}"
    }

    /// The archive with every line's body changed by `change` (line index, body) and re-sealed,
    /// and the trailer's checksum recomputed: an archive an attacker wrote, not a damaged one.
    private func forged(_ lines: [String], _ change: (Int, inout [String: Any]) -> Void) throws -> Data {
        var output = ""
        for (index, line) in lines.enumerated() {
            var body = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8.dropFirst(28).dropLast())) as? [String: Any])
            if index == lines.count - 1 {
                let digits = String(CRC32C.checksum(Array(output.utf8)), radix: 16)
                body["checksum"] = String(repeating: "0", count: 8 - digits.count) + digits
            }
            change(index, &body)
            let bytes = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
            output += resealed(#"{"crc32c":"00000000","body":"# + String(decoding: bytes, as: UTF8.self) + "}") + "\n"
        }
        return Data(output.utf8)
    }

    @Test func aForgedArchiveImportsLikeTheOriginal() async throws {
        let source = try ReplayFixture()
        try await source.record("loading-view", as: "v")
        let lines = lines(try source.engine.exportSession(SessionID("v")))
        let target = try ReplayFixture(registering: [])
        #expect(try await target.engine.importSession(try forged(lines) { _, _ in }).headVersion == 6)
    }

    @Test func aForgedRecordEnteringAStateItsDefinitionLacksIsRefusedAndImportsNothing() async throws {
        let source = try ReplayFixture()
        try await source.record("loading-view", as: "v")
        let lines = lines(try source.engine.exportSession(SessionID("v")))
        // Every checksum valid: version 3 enters a state the definition does not have.
        let archive = try forged(lines) { index, body in
            if index == 3 { body["target"] = ["nowhere"] }
        }
        #expect(
            throws: SessionArchiveError.unknownState(
                line: 4, version: 3, state: "nowhere",
                definition: try #require(
                    source.engine.store.read {
                        try $0.records(of: SessionID("v"), from: 1, limit: 1).first?.definition
                    }))
        ) {
            try SessionArchive.validate(archive)
        }
        let target = try ReplayFixture(registering: [])
        await #expect(throws: SessionArchiveError.self) { try await target.engine.importSession(archive) }
        #expect(try target.engine.store.headSequence() == 0)
    }

    /// A record naming another machine than the header's, after records naming the header's
    /// (the import compares each record's name with the header's as the lines' reader made it):
    /// refused, naming the line and both names.
    @Test func aForgedRecordOfAnotherMachineIsRefusedAndImportsNothing() async throws {
        let source = try ReplayFixture()
        try await source.record("loading-view", as: "v")
        let lines = lines(try source.engine.exportSession(SessionID("v")))
        var header = ""
        let archive = try forged(lines) { index, body in
            if index == 0 { header = body["machine"] as? String ?? "" }
            if index == 3 { body["machine"] = "other-machine" }
        }
        #expect(
            throws: SessionArchiveError.malformedLine(
                line: 4, reason: "its machine 'other-machine' is not the header's '\(header)'")
        ) {
            try SessionArchive.validate(archive)
        }
        let target = try ReplayFixture(registering: [])
        await #expect(throws: SessionArchiveError.self) { try await target.engine.importSession(archive) }
        #expect(try target.engine.store.headSequence() == 0)
    }

    /// A target configuration found known under one definition is checked again under another:
    /// the import remembers the targets it checked (each list the lines repeat is read once),
    /// by definition. Definition A has a state `archived`, B of the same machine does not; a
    /// forged record under B targets `["archived"]`, as a record under A did before it.
    @Test func aTargetKnownUnderOneDefinitionIsCheckedAgainUnderAnother() async throws {
        func flow(archiving: Bool) -> MachineDefinition {
            archiving
                ? MachineDefinition("flow") {
                    StateNode("list") {
                        On("open", to: "detail")
                        On("store", to: "archived")
                    }
                    StateNode("detail") { On("back", to: "list") }
                    StateNode("archived") { On("back", to: "list") }
                }
                : MachineDefinition("flow") {
                    StateNode("list") { On("open", to: "detail") }
                    StateNode("detail") { On("back", to: "list") }
                }
        }
        func exported(_ definition: MachineDefinition, _ events: [String]) async throws -> [String] {
            let fixture = try EngineFixture()
            defer { fixture.remove() }
            let engine = try fixture.open(registering: [try Machine(definition)])
            defer { engine.close() }
            let session = try await engine.startSession(id: "user", machine: "flow")
            for event in events { try await session.send(event) }
            return lines(try engine.exportSession(SessionID("user")))
        }
        // Versions 1-5 under A: start (list), store (archived), back (list), open (detail), back.
        let archiving = try await exported(flow(archiving: true), ["store", "back", "open", "back"])
        let other = try await exported(flow(archiving: false), [])
        func header(_ line: String) throws -> [String: Any] {
            try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8.dropFirst(28).dropLast())) as? [String: Any])
        }
        let definitionB = try #require((try header(other[0])["definitions"] as? [Any])?.first)
        let versionB = try #require((definitionB as? [String: Any])?["version"] as? String)
        let archive = try forged(archiving) { index, body in
            if index == 0, let definitions = body["definitions"] as? [Any] {
                body["definitions"] = definitions + [definitionB]
            }
            if index == 4 {
                body["definition"] = versionB
                body["target"] = ["archived"]
            }
        }
        #expect(
            throws: SessionArchiveError.unknownState(line: 5, version: 4, state: "archived", definition: versionB)
        ) {
            try SessionArchive.validate(archive)
        }
        // Unforged, the same archive imports: the check refuses only the state B lacks.
        let target = try ReplayFixture(registering: [])
        #expect(try await target.engine.importSession(try forged(archiving) { _, _ in }).headVersion == 5)
    }

    /// A record naming a definition the header does not carry, after records naming the one it
    /// does (the import remembers the last definition it found): refused, naming the line.
    @Test func aForgedRecordNamingADefinitionTheHeaderLacksIsRefusedAndImportsNothing() async throws {
        let source = try ReplayFixture()
        try await source.record("loading-view", as: "v")
        let lines = lines(try source.engine.exportSession(SessionID("v")))
        let absent = String(repeating: "feed", count: 16)
        let archive = try forged(lines) { index, body in
            if index == 3 { body["definition"] = absent }
        }
        #expect(
            throws: SessionArchiveError.malformedLine(
                line: 4, reason: "its definition \(absent.prefix(12)) is not in the header")
        ) {
            try SessionArchive.validate(archive)
        }
        let target = try ReplayFixture(registering: [])
        await #expect(throws: SessionArchiveError.self) { try await target.engine.importSession(archive) }
        #expect(try target.engine.store.headSequence() == 0)
    }

    /// Too long for a definitions key, or empty.
    @Test(arguments: [String(repeating: "m", count: 450), ""])
    func aMachineNameTheStoreCannotHoldIsAMalformedHeaderAndImportsNothing(_ name: String) async throws {
        let source = try ReplayFixture()
        try await source.record("loading-view", as: "v")
        let lines = lines(try source.engine.exportSession(SessionID("v")))
        let archive = try forged(lines) { index, body in
            if index < lines.count - 1 { body["machine"] = name }
        }
        let target = try ReplayFixture(registering: [])
        do {
            try await target.engine.importSession(archive)
            Issue.record("an archive whose machine name the store cannot hold was imported")
        } catch let error as SessionArchiveError {
            #expect(error.line == 1)
            #expect(error.description.contains("machine name"))
        }
        #expect(try target.engine.store.headSequence() == 0)
        #expect(try target.engine.sessions().isEmpty)
    }

    /// Format version 2: payloads and state data are JSON values, navigation operations
    /// `{"push": SCREEN}` or `"pop"`, not base64 and Swift's synthesized `{"push":{"_0":…}}`.
    @Test func recordLinesAreReadableJSON() async throws {
        let source = try ReplayFixture()
        let ids = try await source.recordAllExamples()
        var sawPush = false
        var sawPayload = false
        var sawStateData = false
        for id in ids {
            let lines = lines(try source.engine.exportSession(id))
            #expect(lines[0].contains(#""formatVersion":2"#))
            for line in lines.dropFirst().dropLast() {
                #expect(!line.contains(#""_0""#), "\(line)")
                #expect(!line.contains("Base64"), "a JSON payload or data went out in base64: \(line)")
                let body = try #require(
                    try JSONSerialization.jsonObject(with: Data(line.utf8.dropFirst(28).dropLast())) as? [String: Any])
                for operation in try #require(body["navigation"] as? [Any]) {
                    if let name = operation as? String {
                        #expect(["none", "pop", "popToRoot"].contains(name))
                    } else {
                        let object = try #require(operation as? [String: String], "\(operation)")
                        #expect(object.count == 1)
                        sawPush = sawPush || object["push"] != nil
                    }
                }
                if body["payload"] != nil { sawPayload = true }
                if body["stateData"] is [String: Any] { sawStateData = true }
            }
        }
        #expect(sawPush && sawPayload && sawStateData)
    }

    /// Bytes that are not JSON the value writes back exactly (say a coder's own format) go out in
    /// base64 and come back as the same bytes.
    @Test func payloadBytesThatAreNotExactJSONRoundTripInBase64() async throws {
        let source = try ReplayFixture()
        try await source.record("loading-view", as: "v")
        let lines = lines(try source.engine.exportSession(SessionID("v")))
        // Rewrite record 2's payload as bytes with a space (valid JSON, but not as written back).
        let spaced = Data(#"{ "a": 1 }"#.utf8).base64EncodedString()
        let archive = try forged(lines) { index, body in
            if index == 2 {
                body["payload"] = nil
                body["payloadBase64"] = spaced
            }
        }
        let target = try ReplayFixture(registering: [])
        let info = try await target.engine.importSession(archive)
        let record = try #require(
            try target.engine.store.read { try $0.records(of: info.session, from: 2, limit: 1).first })
        #expect(record.payload == Array(#"{ "a": 1 }"#.utf8))
        let again = self.lines(try target.engine.exportSession(info.session))
        #expect(again[2].contains(#""payloadBase64":"\#(spaced)""#), "\(again[2])")
    }

    /// A record whose payload bytes are `null` keeps them through import, export and a rewrite,
    /// apart from a record without payload bytes: `"payload":null` is the value `.null`, an
    /// absent `payload` is `nil` (``JSONValue``'s rule for `JSONValue?`).
    @Test func aNullPayloadStaysApartFromNoPayload() async throws {
        let source = try ReplayFixture()
        try await source.record("loading-view", as: "v")
        let lines = lines(try source.engine.exportSession(SessionID("v")))
        // Two record lines without payload bytes: the first gets the bytes `null`.
        let bare = lines.indices.dropFirst().dropLast().filter { !lines[$0].contains(#""payload""#) }
        try #require(bare.count >= 2)
        let (null, none) = (bare[0], bare[1])
        let archive = try forged(lines) { index, body in
            if index == null { body["payload"] = NSNull() }
        }
        let target = try ReplayFixture(registering: [])
        let info = try await target.engine.importSession(archive)
        let records = try target.engine.store.read { try $0.records(of: info.session) }
        // Line n holds version n.
        #expect(records[null - 1].payload == Array("null".utf8))
        #expect(records[none - 1].payload == [])
        let exported = self.lines(try target.engine.exportSession(info.session))
        #expect(exported[null].contains(#""payload":null"#), "\(exported[null])")
        #expect(!exported[none].contains(#""payload""#), "\(exported[none])")

        var payloads: [UInt64: JSONValue?] = [:]
        let rewritten = self.lines(try SessionArchive.rewritten(archive) { payloads[$0.version] = $0.payload })
        #expect(payloads[UInt64(null)] == .some(.null))
        #expect(payloads[UInt64(none)] == .some(nil))
        #expect(rewritten[null].contains(#""payload":null"#), "\(rewritten[null])")
        #expect(!rewritten[none].contains(#""payload""#), "\(rewritten[none])")
    }

    /// An archive written by format version 1 (base64, synthesized navigation) still imports.
    @Test func aFormatVersion1ArchiveImportsLikeTheOriginal() async throws {
        let source = try ReplayFixture()
        let ids = try await source.recordAllExamples()
        let target = try ReplayFixture(registering: [])
        for id in ids {
            let lines = lines(try source.engine.exportSession(id))
            let old = try forged(lines) { index, body in
                if index == 0 { body["formatVersion"] = 1 }
                guard index > 0, index < lines.count - 1 else { return }
                for key in ["payload", "stateData"] {
                    let value = body[key]
                    let bytes =
                        value.map {
                            (try? JSONSerialization.data(
                                withJSONObject: $0, options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes]))
                                ?? Data()
                        } ?? Data()
                    body[key] = bytes.base64EncodedString()
                }
                body["navigation"] = (body["navigation"] as? [Any] ?? []).map { operation -> Any in
                    if let name = operation as? String { return [name: [String: Any]()] }
                    guard let (name, screen) = (operation as? [String: String])?.first else { return operation }
                    return [name: ["_0": screen]]
                }
            }
            let info = try await target.engine.importSession(old)
            let (originals, imported) = (
                try source.engine.store.read { try $0.records(of: id) },
                try target.engine.store.read { try $0.records(of: info.session) }
            )
            #expect(imported.map(\.transition.navigation) == originals.map(\.transition.navigation))
            #expect(imported.map(\.transition.target) == originals.map(\.transition.target))
        }
    }

    @Test func exportThenImportIntoAnotherStoreEqualsTheOriginal() async throws {
        let source = try ReplayFixture()
        let ids = try await source.recordAllExamples()
        let target = try ReplayFixture(registering: [])
        for id in ids {
            let data = try source.engine.exportSession(id)
            let lines = lines(data)
            #expect(lines.count == Int(try #require(try source.engine.store.sessionInfo(for: id)).headVersion) + 2)
            #expect(lines[0].contains(#""format":"rewind.session""#))

            let info = try await target.engine.importSession(data)
            #expect(info.session == id)
            let (originals, imported) = (
                try source.engine.store.read { try $0.records(of: id) },
                try target.engine.store.read { try $0.records(of: id) }
            )
            #expect(imported.map(\.transition) == originals.map(\.transition))
            #expect(imported.map(\.version) == originals.map(\.version))

            // The importing engine has no machine registered: it replays with the imported definitions.
            var originalCursor = try source.engine.replayCursor(for: id)
            var importedCursor = try target.engine.replayCursor(for: id)
            while let expected = try originalCursor.stepForward() {
                #expect(try importedCursor.stepForward() == expected)
            }
            // Exporting the import gives the same file but for the global sequences.
            let again = self.lines(try target.engine.exportSession(id))
            #expect(again.count == lines.count)
            #expect(again.first == lines.first)
        }
    }

    /// A definition's integers past 2^53 (a `<send>` delay meaning "never", say) are carried
    /// exactly: the archive's copy of the definition keeps its content version.
    @Test(arguments: [Int.max, (1 << 53) + 1])
    func aDefinitionWithAnIntegerPast2To53RoundTrips(delay: Int) async throws {
        let machine = try Machine(
            MachineDefinition("far") {
                StateNode("idle") {
                    On("arm", to: "armed", actions: [.send(event: "ring", delay: .milliseconds(delay))])
                }
                StateNode("armed") { On("ring", to: "idle") }
            })
        let source = try ReplayFixture(registering: [machine])
        _ = try await source.engine.startSession(id: "f", machine: "far").send("arm")
        let data = try source.engine.exportSession(SessionID("f"))
        let target = try ReplayFixture(registering: [])
        #expect(try await target.engine.importSession(data).headVersion == 2)
        let definition = try #require(
            try target.engine.storedDefinition(
                name: "far", version: machine.definition.contentVersion))
        #expect(definition == machine.definition)
        // Exporting the import gives the same header.
        #expect(lines(try target.engine.exportSession(SessionID("f"))).first == lines(data).first)
    }

    @Test func importUnderANewIdKeepsTheOriginAndWritesSnapshots() async throws {
        let source = try ReplayFixture(snapshotInterval: 2)
        try await source.record("browser", as: "b")
        try await source.engine.fork(SessionID("b"), at: 6, as: SessionID("b-fork"))
        let data = try source.engine.exportSession(SessionID("b-fork"))
        let info = try await source.engine.importSession(data, as: SessionID("b-copy"))
        #expect(info.headVersion == 6)
        #expect(info.origin == RecordOrigin(session: SessionID("b"), version: 6))
        let snapshots = try source.engine.store.read { transaction in
            try [2, 4, 6].map { try transaction.value(forKey: StoreKey.compound("b-copy", $0), in: .snapshots) }
        }
        #expect(snapshots.allSatisfy { $0 != nil })
        let resumed = try source.engine.session(SessionID("b-copy"))
        #expect(resumed.state == (try source.engine.session(SessionID("b-fork"))).state)
        await #expect(throws: EngineError.sessionExists(SessionID("b-copy"))) {
            try await source.engine.importSession(data, as: SessionID("b-copy"))
        }
    }

    @Test func truncatedArchivesAreRejectedWithTheLineNumberAndImportNothing() async throws {
        let source = try ReplayFixture()
        try await source.record("loading-view", as: "v")
        let data = try source.engine.exportSession(SessionID("v"))
        let lines = lines(data)  // header, 6 records, trailer
        let target = try ReplayFixture(registering: [])

        let cases: [(Data, SessionArchiveError)] = [
            (data.prefix(data.count - 10), .truncated(line: 8, reason: "the line is cut short (it has no newline)")),
            (
                archive(Array(lines.prefix(7))),
                .truncated(line: 8, reason: "the file ends after 7 complete lines, before the trailer")
            ),
            (
                archive(Array(lines.prefix(3))),
                .truncated(line: 4, reason: "the file ends after 3 complete lines, before record 3 of 6")
            ),
            (Data(), .truncated(line: 1, reason: "the file ends after 0 complete lines, before the header")),
        ]
        for (archive, expected) in cases {
            await #expect(throws: expected) { try await target.engine.importSession(archive) }
        }
        #expect(try target.engine.store.headSequence() == 0)
        #expect(try target.engine.sessions().isEmpty)
    }

    @Test func tamperedArchivesAreRejectedWithTheLineNumberAndImportNothing() async throws {
        let source = try ReplayFixture()
        try await source.record("loading-view", as: "v")
        let data = try source.engine.exportSession(SessionID("v"))
        let lines = lines(data)
        let target = try ReplayFixture(registering: [])
        func importing(_ lines: [String]) async -> SessionArchiveError? {
            do {
                try await target.engine.importSession(archive(lines))
                return nil
            } catch {
                return error as? SessionArchiveError
            }
        }

        // A changed event name: the line's own checksum catches it.
        var changed = lines
        changed[2] = changed[2].replacingOccurrences(of: #""event":"loaded""#, with: #""event":"failed""#)
        #expect(changed[2] != lines[2])
        let checksum = await importing(changed)
        #expect(checksum?.line == 3)
        if case .checksumMismatch = checksum {
        } else {
            Issue.record("expected a checksum mismatch, got \(String(describing: checksum))")
        }

        // The same change with the line re-sealed: the trailer's checksum over all lines catches it.
        changed[2] = resealed(changed[2])
        #expect(await importing(changed)?.line == 8)

        // A record line removed: a version gap at that line.
        var removed = lines
        removed.remove(at: 3)
        #expect(await importing(removed) == .versionGap(line: 4, expected: 3, found: 4))

        // A changed definition in the header, re-sealed: its content version no longer matches.
        var header = lines
        header[0] = resealed(header[0].replacingOccurrences(of: #""loaded""#, with: #""loadedX""#))
        let definition = await importing(header)
        #expect(definition?.line == 1)
        if case .malformedLine = definition {
        } else {
            Issue.record("expected a malformed header, got \(String(describing: definition))")
        }

        // Text after the trailer, and a line that is not an envelope.
        #expect(await importing(lines + ["{}"])?.line == 9)
        var garbage = lines
        garbage[4] = "not json"
        #expect(await importing(garbage)?.line == 5)

        #expect(try target.engine.store.headSequence() == 0)
        #expect(try target.engine.sessions().isEmpty)
        // The untouched archive imports.
        #expect(try await target.engine.importSession(data).headVersion == 6)
    }

    @Test func aSessionWhoseDefinitionNeedsBindingsRoundTripsAndReplaysWithThem() async throws {
        let source = try ReplayFixture(registering: [try CounterMachine.machine()])
        let session = try await source.engine.startSession(id: "c", machine: "counter", context: ["count": 0])
        for _ in 0..<5 { try await session.send("tick") }
        try await session.send("stop")
        let data = try source.engine.exportSession(session.id)

        let target = try ReplayFixture(registering: [])
        try await target.engine.importSession(data, as: SessionID("copy"))
        var cursor = try target.engine.replayCursor(for: "copy", bindings: CounterMachine.bindings)
        let head = try cursor.last()
        #expect(head.context == ["count": 5])
        #expect(head.configuration == ["stopped"])
        #expect(head.state == session.state)
        #expect(try target.engine.verify(SessionID("copy"), against: try CounterMachine.machine()).isClean)
    }

    @Test func archivesGoThroughFilesAndErrorsNameTheirLine() async throws {
        let source = try ReplayFixture()
        try await source.record("upload", as: "u")
        let directory = try TemporaryDirectory(prefix: "rewind-archive")
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("u.ndjson")
        try source.engine.exportSession(SessionID("u"), to: url)

        let target = try ReplayFixture(registering: [])
        let info = try await target.engine.importSession(from: url, as: SessionID("u2"))
        #expect(info.headVersion == 7)
        #expect(
            try target.engine.history(of: info.session).map(\.event)
                == (try source.engine.history(of: SessionID("u"))).map(\.event))

        var data = try Data(contentsOf: url)
        data[data.count / 2] ^= 0x01
        do {
            try await target.engine.importSession(data, as: SessionID("u3"))
            Issue.record("an altered archive was imported")
        } catch let error as SessionArchiveError {
            let line = try #require(error.line)
            #expect(error.description.contains("line \(line)"))
            #expect(error.description.contains("nothing was imported"))
        }
        #expect(try target.engine.store.sessionInfo(for: SessionID("u3")) == nil)
    }
}

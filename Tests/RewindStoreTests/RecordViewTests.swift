import RewindBaseTestSupport
@_spi(Internals) import RewindStore
import Testing

@Suite("Record views")
struct RecordViewTests {
    /// A random record: ASCII and non-ASCII strings, empty and long lists, every navigation
    /// operation, with or without an origin.
    static func randomRecord(sequence: UInt64, using random: inout SeededRandom) throws -> TransitionRecord {
        let words = [
            "a", "greeting", "login", "home", "ünïcødé", "main.login.password-field-with-a-long-id",
            "日本語", "x y", "",
        ]
        func word() -> String { words[Int.random(in: 0..<words.count, using: &random)] }
        func nonEmptyWord() -> String {
            let text = word()
            return text.isEmpty ? "s" : text
        }
        func list() -> [String] { (0..<Int.random(in: 0...4, using: &random)).map { _ in word() } }
        func bytes() -> [UInt8] {
            (0..<Int.random(in: 0...40, using: &random)).map { _ in UInt8.random(in: .min ... .max, using: &random) }
        }
        let operations: [NavigationOperation] = [
            .none, .push(word()), .pop, .popToRoot, .popTo(word()),
            .replace(word()), .setRoot(word()),
        ]
        let navigation = (0..<Int.random(in: 0...3, using: &random)).map { _ in
            operations[Int.random(in: 0..<operations.count, using: &random)]
        }
        let origin =
            random.chance(0.3)
            ? RecordOrigin(
                session: try SessionID(nonEmptyWord() + "-parent"),
                version: UInt64.random(in: 1...1_000_000, using: &random))
            : nil
        return TransitionRecord(
            sequence: sequence, session: try SessionID(nonEmptyWord() + "-\(Int.random(in: 0..<50, using: &random))"),
            version: UInt64.random(in: 1...UInt64.max, using: &random),
            timestamp: Timestamp(microsecondsSince1970: Int64.random(in: .min ... .max, using: &random)),
            machine: word(), definition: word(), event: word(), source: list(), target: list(),
            navigation: navigation, payload: bytes(), stateData: bytes(), origin: origin)
    }

    @Test func aViewShowsEveryFieldOfRandomRecordsAndCopiesOutTheRecord() throws {
        var random = SeededRandom(seed: 42)
        for index in 0..<1_000 {
            let sequence = UInt64(index + 1) * 1_013
            let original = try Self.randomRecord(sequence: sequence, using: &random)
            let bytes = RecordCodec.encode(original)
            try bytes.withUnsafeBytes { buffer in
                let view = try RecordView(buffer, sequence: sequence)
                #expect(view.record() == original)
                #expect(try RecordCodec.decode(buffer, sequence: sequence) == original)
                try RecordCodec.check(buffer, sequence: sequence)
                #expect(view.sequence == sequence)
                #expect(view.version == original.version)
                #expect(view.timestamp == original.timestamp)
                #expect(view.session == original.session)
                #expect(view.sessionBytes.equalsUTF8(of: original.session.rawValue))
                #expect(view.machineBytes.equalsUTF8(of: original.machine))
                #expect(view.eventBytes.equalsUTF8(of: original.event))
                #expect(view.string(view.definitionField) == original.definition)
                #expect(view.target.map { String(decoding: $0, as: UTF8.self) } == original.target)
                #expect(view.source.map { String(decoding: $0, as: UTF8.self) } == original.source)
                #expect(view.target.equalsUTF8(of: original.target))
                #expect(view.target.count == original.target.count)
                #expect(Array(view.stateDataBytes) == original.stateData)
                #expect(Array(view.bytes(of: view.payloadField)) == original.payload)
                #expect(view.navigationCount == original.navigation.count)
            }
        }
    }

    @Test func aListComparesUnequalToOtherStrings() throws {
        var random = SeededRandom(seed: 7)
        let original = try Self.randomRecord(sequence: 1, using: &random)
        let bytes = RecordCodec.encode(original)
        try bytes.withUnsafeBytes { buffer in
            let view = try RecordView(buffer, sequence: 1)
            #expect(!view.target.equalsUTF8(of: original.target + ["more"]))
            #expect(!view.target.equalsUTF8(of: original.target.map { $0 + "!" }) || original.target.isEmpty)
        }
    }

    /// The error a view and `decode` give for `bytes` (they must be the same).
    private func errors(_ bytes: [UInt8], sequence: UInt64) -> (view: StoreError?, decode: StoreError?) {
        bytes.withUnsafeBytes { buffer in
            var viewError: StoreError?
            do throws(StoreError) { _ = try RecordView(buffer, sequence: sequence) } catch { viewError = error }
            // The check alone (`RecordCodec.check`) refuses what the view refuses, with its error.
            var checkError: StoreError?
            do throws(StoreError) { try RecordCodec.check(buffer, sequence: sequence) } catch { checkError = error }
            #expect(checkError == viewError)
            let decodeError = #expect(throws: StoreError.self) {
                _ = try RecordCodec.decode(buffer, sequence: sequence)
            }
            return (viewError, decodeError)
        }
    }

    @Test func everyTruncationAndFlippedByteIsRejectedByTheViewAsByDecode() throws {
        var random = SeededRandom(seed: 99)
        for index in 0..<20 {
            let bytes = RecordCodec.encode(try Self.randomRecord(sequence: UInt64(index + 1), using: &random))
            for length in 0..<bytes.count {
                let (view, decode) = errors(Array(bytes[..<length]), sequence: UInt64(index + 1))
                #expect(view != nil)
                #expect(view == decode)
            }
            for position in bytes.indices {
                var corrupted = bytes
                corrupted[position] ^= 0x5A
                let (view, decode) = errors(corrupted, sequence: UInt64(index + 1))
                guard case .corruptedRecord(let sequence, _)? = view else {
                    Issue.record("byte \(position): expected corruptedRecord, got \(String(describing: view))")
                    continue
                }
                #expect(sequence == UInt64(index + 1))
                #expect(view == decode)
            }
        }
    }

    /// `bytes` with `text`'s last byte replaced by `replacement` and the checksum recomputed.
    private func corrupt(_ bytes: [UInt8], text: String, with replacement: UInt8) throws -> [UInt8] {
        var bytes = bytes
        let utf8 = Array(text.utf8)
        let start = try #require((0...(bytes.count - utf8.count)).first { Array(bytes[$0..<$0 + utf8.count]) == utf8 })
        bytes[start + utf8.count - 1] = replacement
        let body = bytes.count - 4
        let checksum = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[..<body])) }
        withUnsafeBytes(of: checksum.littleEndian) { bytes.replaceSubrange(body..., with: $0) }
        return bytes
    }

    @Test(arguments: [
        "session-q", "machine-q", "definition-q", "event-q", "source-q", "target-q", "screen-q", "parent-q",
        "ünïcødé-q",
    ])
    func invalidUTF8InAnyStringUnderAValidChecksumIsRejected(field: String) throws {
        let record = TransitionRecord(
            sequence: 3, session: SessionID("session-q"), version: 1, timestamp: Timestamp(microsecondsSince1970: 0),
            machine: "machine-q", definition: "definition-q", event: "event-q", source: ["source-q"],
            target: ["target-q", "ünïcødé-q"], navigation: [.push("screen-q")], payload: [0xFF], stateData: [],
            origin: RecordOrigin(session: SessionID("parent-q"), version: 2))
        let bytes = try corrupt(RecordCodec.encode(record), text: field, with: 0xFF)
        let (view, decode) = errors(bytes, sequence: 3)
        #expect(view?.description.contains("is not valid UTF-8") == true)
        #expect(view == decode)
    }

    @Test func aSessionIDWithANULUnderAValidChecksumIsRejected() throws {
        let record = TransitionRecord(
            sequence: 3, session: SessionID("session-q"), version: 1, timestamp: Timestamp(microsecondsSince1970: 0),
            machine: "m", definition: "d", event: "e", source: [], target: [], navigation: [], payload: [],
            stateData: [], origin: nil)
        let bytes = try corrupt(RecordCodec.encode(record), text: "session-q", with: 0)
        let (view, decode) = errors(bytes, sequence: 3)
        #expect(view?.description.contains("invalid session id") == true)
        #expect(view == decode)
    }

    /// `bytes` (a record at a small sequence and version) with the string field starting at
    /// `offset` (its one-byte length, then its bytes) made empty, and the checksum recomputed.
    private func emptyingString(at offset: Int, in bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        let length = Int(bytes[offset])
        bytes.replaceSubrange(offset..<(offset + 1 + length), with: [0])
        let body = bytes.count - 4
        let checksum = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[..<body])) }
        withUnsafeBytes(of: checksum.littleEndian) { bytes.replaceSubrange(body..., with: $0) }
        return bytes
    }

    @Test func anEmptySessionIDUnderAValidChecksumIsRejected() throws {
        let record = TransitionRecord(
            sequence: 3, session: SessionID("session-q"), version: 1, timestamp: Timestamp(microsecondsSince1970: 0),
            machine: "m", definition: "d", event: "e", source: [], target: [], navigation: [], payload: [],
            stateData: [], origin: RecordOrigin(session: SessionID("parent-q"), version: 2))
        let bytes = RecordCodec.encode(record)
        // Format, flags, sequence 3, version 1 (one byte each), the 8-byte timestamp: the session.
        let sessionOffset = 12
        #expect(Array(bytes[(sessionOffset + 1)...].prefix(9)) == Array("session-q".utf8))
        let (view, decode) = errors(emptyingString(at: sessionOffset, in: bytes), sequence: 3)
        #expect(view?.description.contains("invalid session id") == true, "\(String(describing: view))")
        #expect(view == decode)
        // The origin's session id, the last string before the origin version and the checksum.
        let originOffset = bytes.count - 4 - 1 - 8 - 1
        #expect(Array(bytes[(originOffset + 1)...].prefix(8)) == Array("parent-q".utf8))
        let (originView, originDecode) = errors(emptyingString(at: originOffset, in: bytes), sequence: 3)
        #expect(originView?.description.contains("invalid session id") == true, "\(String(describing: originView))")
        #expect(originView == originDecode)
    }

    @Test func aStoreLendsViewsOfItsRecordsInOrder() throws {
        try withStore { store, _ in
            var random = SeededRandom(seed: 5)
            try store.write { transaction in
                for _ in 0..<200 {
                    var record = try Self.randomRecord(sequence: 0, using: &random)
                    record.machine += "m"
                    record.event += "e"
                    record.target.append("t")
                    try transaction.append([record.transition], to: record.session)
                }
            }
            try store.read { transaction in
                var seen: [TransitionRecord] = []
                try transaction.forEachRecordView(from: 51) { view in
                    seen.append(view.record())
                    return seen.count < 100 ? .next : .stop
                }
                let expected = try transaction.records(from: 51, limit: 100)
                #expect(expected.count == 100)
                #expect(seen == expected)
            }
        }
    }
}

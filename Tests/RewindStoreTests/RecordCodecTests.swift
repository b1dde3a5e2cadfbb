@_spi(Internals) import RewindStore
import Testing

@Suite("Record encoding")
struct RecordCodecTests {
    func record(
        sequence: UInt64 = 77, navigation: [NavigationOperation] = [.push("Login")],
        payload: [UInt8] = Array(#"{"name":"Ada"}"#.utf8), stateData: [UInt8] = [1, 2, 3],
        origin: RecordOrigin? = nil
    ) throws -> TransitionRecord {
        TransitionRecord(
            sequence: sequence, session: SessionID("session-ü-1"), version: 12,
            timestamp: Timestamp(microsecondsSince1970: -1_234_567), machine: "onboarding",
            definition: "sha256:abcdef", event: "continue", source: ["main.greeting", "side.idle"],
            target: ["main.login", "side.busy", "ünïcødé"], navigation: navigation,
            payload: payload, stateData: stateData, origin: origin)
    }

    @Test(arguments: [
        [NavigationOperation](), [.none], [.push("A")], [.pop], [.popToRoot], [.popTo("B")], [.replace("C")],
        [.setRoot("D")], [.push("A"), .replace("B"), .popToRoot, .setRoot("C")],
    ])
    func everyFieldRoundTrips(navigation: [NavigationOperation]) throws {
        let original = try record(
            navigation: navigation, origin: RecordOrigin(session: SessionID("parent"), version: 4))
        let decoded = try RecordCodec.decode(RecordCodec.encode(original), sequence: 77)
        #expect(decoded == original)
    }

    @Test func emptyAndOneMebibytePayloadsRoundTrip() throws {
        let large = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for (payload, stateData) in [([UInt8](), [UInt8]()), (large, large), ([], large)] {
            let original = try record(payload: payload, stateData: stateData)
            let decoded = try RecordCodec.decode(RecordCodec.encode(original), sequence: 77)
            #expect(decoded.payload == payload)
            #expect(decoded.stateData == stateData)
            #expect(decoded == original)
        }
    }

    @Test func everyTruncationThrowsACorruptedRecordNamingTheSequence() throws {
        let bytes = RecordCodec.encode(try record(origin: RecordOrigin(session: SessionID("p"), version: 1)))
        for length in 0..<bytes.count {
            let error = #expect(throws: StoreError.self) {
                _ = try RecordCodec.decode(Array(bytes[..<length]), sequence: 77)
            }
            guard case .corruptedRecord(let sequence, _)? = error else {
                Issue.record("length \(length): expected corruptedRecord, got \(String(describing: error))")
                continue
            }
            #expect(sequence == 77)
        }
    }

    @Test func everySingleFlippedByteIsDetected() throws {
        let bytes = RecordCodec.encode(try record())
        for index in bytes.indices {
            var corrupted = bytes
            corrupted[index] ^= 0x5A
            let error = #expect(throws: StoreError.self) { _ = try RecordCodec.decode(corrupted, sequence: 77) }
            guard case .corruptedRecord(77, _)? = error else {
                Issue.record("byte \(index): expected corruptedRecord at 77, got \(String(describing: error))")
                continue
            }
        }
    }

    @Test func anUnknownFormatVersionIsReportedAsSuch() throws {
        var bytes = RecordCodec.encode(try record())
        bytes[0] = RecordCodec.formatVersion + 1
        let error = #expect(throws: StoreError.self) { _ = try RecordCodec.decode(bytes, sequence: 77) }
        #expect(error?.description.contains("unknown record format version 2") == true)
        #expect(error?.description.contains("sequence 77") == true)
    }

    @Test func aRecordStoredUnderAnotherSequenceIsRejected() throws {
        let bytes = RecordCodec.encode(try record(sequence: 5))
        let error = #expect(throws: StoreError.self) { _ = try RecordCodec.decode(bytes, sequence: 6) }
        #expect(error?.description.contains("says it is sequence 5") == true)
    }

    @Test(arguments: ["continue", "ünïcødé"])
    func aStringWithInvalidUTF8UnderAValidChecksumIsRejected(field: String) throws {
        var bytes = RecordCodec.encode(try record())
        let text = Array(field.utf8)
        let start = try #require((0...(bytes.count - text.count)).first { Array(bytes[$0..<$0 + text.count]) == text })
        bytes[start + text.count - 1] = 0xFF  // never valid in UTF-8
        let body = bytes.count - 4
        let checksum = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[..<body])) }
        withUnsafeBytes(of: checksum.littleEndian) { bytes.replaceSubrange(body..., with: $0) }
        let error = #expect(throws: StoreError.self) { _ = try RecordCodec.decode(bytes, sequence: 77) }
        #expect(error?.description.contains("is not valid UTF-8") == true)
    }

    @Test func theEncodingIsCompactAndStartsWithItsFormatVersion() throws {
        let original = try record(payload: [], stateData: [])
        let bytes = RecordCodec.encode(original)
        #expect(bytes.first == RecordCodec.formatVersion)
        // Strings' bytes plus a few bytes of framing per field; no per-field names or padding.
        let textBytes = [
            "session-ü-1", "onboarding", "sha256:abcdef", "continue", "main.greeting", "side.idle",
            "main.login", "side.busy", "ünïcødé", "Login",
        ].reduce(0) { $0 + $1.utf8.count }
        #expect(bytes.count < textBytes + 40)
    }
}

extension RecordCodecTests {
    /// The exact bytes of one record, every kind of field set (written down from the encoder of
    /// record format 1 as it stood before it encoded in place): an encoder change that alters the
    /// format fails here, not only round trips.
    @Test func theEncodingIsByteForByteFormat1() throws {
        let record = try record(
            sequence: 300, navigation: [.push("Login"), .pop, .setRoot("Ü")],
            origin: RecordOrigin(session: SessionID("parent"), version: 129))
        let golden = [
            "1,1,ac,2,c,79,29,ed,ff,ff,ff,ff,ff,c,73,65,73,73,69,6f,6e,2d,c3,bc,2d,31,a,6f,6e,62,6f,",
            "61,72,64,69,6e,67,d,73,68,61,32,35,36,3a,61,62,63,64,65,66,8,63,6f,6e,74,69,6e,75,65,2,",
            "d,6d,61,69,6e,2e,67,72,65,65,74,69,6e,67,9,73,69,64,65,2e,69,64,6c,65,3,a,6d,61,69,6e,",
            "2e,6c,6f,67,69,6e,9,73,69,64,65,2e,62,75,73,79,b,c3,bc,6e,c3,af,63,c3,b8,64,c3,a9,3,1,5,",
            "4c,6f,67,69,6e,2,6,2,c3,9c,e,7b,22,6e,61,6d,65,22,3a,22,41,64,61,22,7d,3,1,2,3,6,70,61,",
            "72,65,6e,74,81,1,b5,6d,3,98",
        ].joined()
        #expect(RecordCodec.encode(record).map { String($0, radix: 16) }.joined(separator: ",") == golden)
    }
}

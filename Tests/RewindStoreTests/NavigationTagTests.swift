import Testing

@_spi(Internals) @testable import RewindStore

/// The one table of navigation tags (``NavigationTag``): every operation's byte as record format 1
/// has it, both ways, and the record check and decoder reading the same table.
@Suite("Navigation tags")
struct NavigationTagTests {
    /// Every case, with the byte format 1 gives it (written down, not derived from the table).
    static let onDisk: [(NavigationOperation, UInt8)] = [
        (.none, 0), (.push("A"), 1), (.pop, 2), (.popToRoot, 3), (.popTo("B"), 4), (.replace("C"), 5),
        (.setRoot("D"), 6),
    ]

    @Test func everyOperationHasItsFormat1ByteAndComesBack() {
        #expect(Self.onDisk.count == NavigationTag.allCases.count)
        for (operation, byte) in Self.onDisk {
            let tag = NavigationTag(operation)
            #expect(tag.rawValue == byte, "\(operation)")
            #expect(tag.hasScreen == (operation.screen != nil), "\(operation)")
            #expect(tag.operation { operation.screen ?? "unused" } == operation)
        }
    }

    @Test func aRecordCarriesEachTagAndItsScreen() throws {
        for (operation, byte) in Self.onDisk {
            let record = TransitionRecord(
                sequence: 1, session: SessionID("s"), version: 1, timestamp: Timestamp(microsecondsSince1970: 0),
                machine: "m", definition: "d", event: "e", source: [], target: ["t"], navigation: [operation],
                payload: [], stateData: [], origin: nil)
            let bytes = RecordCodec.encode(record)
            // After the target list ([1, 1, "t"]) come the navigation count and the tag.
            let navigation = try #require(bytes.firstRange(of: [1, 1, UInt8(ascii: "t")])).upperBound
            #expect(bytes[navigation] == 1)
            #expect(bytes[navigation + 1] == byte, "\(operation)")
            #expect(try RecordCodec.decode(bytes, sequence: 1).navigation == [operation])
        }
    }

    @Test func aTagBeyondTheTableIsACorruptedRecord() throws {
        let record = TransitionRecord(
            sequence: 1, session: SessionID("s"), version: 1, timestamp: Timestamp(microsecondsSince1970: 0),
            machine: "m", definition: "d", event: "e", source: [], target: ["t"], navigation: [.pop],
            payload: [], stateData: [], origin: nil)
        var bytes = RecordCodec.encode(record)
        let navigation = try #require(bytes.firstRange(of: [1, 1, UInt8(ascii: "t")])).upperBound
        bytes[navigation + 1] = 7
        // A valid checksum over the bad tag, so that the tag check itself is what rejects it.
        let checksum = bytes.dropLast(4).withUnsafeBytes { CRC32C.checksum($0) }
        bytes.replaceSubrange((bytes.count - 4)..., with: withUnsafeBytes(of: checksum.littleEndian) { Array($0) })
        #expect {
            try RecordCodec.decode(bytes, sequence: 1)
        } throws: { error in
            guard case .corruptedRecord(1, let reason) = error as? StoreError else { return false }
            return reason.contains("unknown navigation tag 7")
        }
    }
}

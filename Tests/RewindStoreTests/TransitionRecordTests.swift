import Foundation
import RewindStore
import Testing

/// `TransitionRecord` holds its fields once, in its `TransitionDraft`, behind forwarding
/// properties; its `Codable` form stays the flat one the fields-of-its-own record had.
@Suite("Transition record")
struct TransitionRecordTests {
    /// The record as it was declared before it shared the draft's fields, for its synthesized
    /// `Codable` form (the old shape's bytes).
    private struct FlatRecord: Codable, Equatable {
        var sequence: UInt64
        var session: SessionID
        var version: UInt64
        var timestamp: Timestamp
        var machine: String
        var definition: String
        var event: String
        var source: [String]
        var target: [String]
        var navigation: [NavigationOperation]
        var payload: [UInt8]
        var stateData: [UInt8]
        var origin: RecordOrigin?
    }

    private func draft(origin: RecordOrigin? = nil) -> TransitionDraft {
        TransitionDraft(
            timestamp: Timestamp(microsecondsSince1970: 1_700_000_000_123_456), machine: "onboarding",
            definition: "abc123", event: "next", source: ["welcome"], target: ["profile", "profile.name"],
            navigation: [.push("profile"), .pop], payload: [1, 2, 3], stateData: [0x7B, 0x7D],
            origin: origin)
    }

    private func flat(_ record: TransitionRecord) -> FlatRecord {
        FlatRecord(
            sequence: record.sequence, session: record.session, version: record.version,
            timestamp: record.timestamp, machine: record.machine, definition: record.definition,
            event: record.event, source: record.source, target: record.target,
            navigation: record.navigation, payload: record.payload, stateData: record.stateData,
            origin: record.origin)
    }

    @Test func isItsDraftPlusWhatTheStoreAssigned() throws {
        let transition = draft(origin: RecordOrigin(session: SessionID("parent"), version: 4))
        let record = TransitionRecord(sequence: 9, session: SessionID("s"), version: 2, transition: transition)
        #expect(record.transition == transition)
        #expect(record.machine == "onboarding" && record.event == "next" && record.payload == [1, 2, 3])
        let fromFields = TransitionRecord(
            sequence: 9, session: SessionID("s"), version: 2, timestamp: transition.timestamp,
            machine: transition.machine, definition: transition.definition, event: transition.event,
            source: transition.source, target: transition.target, navigation: transition.navigation,
            payload: transition.payload, stateData: transition.stateData, origin: transition.origin)
        #expect(fromFields == record)
        #expect(fromFields.hashValue == record.hashValue)
    }

    @Test func forwardedFieldsWriteThroughToTheDraft() throws {
        var record = TransitionRecord(sequence: 1, session: SessionID("s"), version: 1, transition: draft())
        record.payload.append(4)
        record.machine = "checkout"
        record.target[0] = "done"
        record.origin = RecordOrigin(session: SessionID("p"), version: 1)
        #expect(record.transition.payload == [1, 2, 3, 4])
        #expect(record.transition.machine == "checkout")
        #expect(record.transition.target == ["done", "profile.name"])
        #expect(record.transition.origin?.version == 1)
        var other = record
        other.event = "back"
        #expect(record != other)
        #expect(record.event == "next")
    }

    @Test(arguments: [false, true])
    func encodesTheOldFlatShapeByteForByte(withOrigin: Bool) throws {
        let origin = withOrigin ? RecordOrigin(session: SessionID("parent"), version: 3) : nil
        let record = TransitionRecord(
            sequence: 7, session: SessionID("s-1"), version: 5, transition: draft(origin: origin))
        // Sorted keys: the order of unsorted keys is JSONEncoder's, not part of the shape.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let oldBytes = try encoder.encode(flat(record))
        #expect(try encoder.encode(record) == oldBytes)
        // Bytes in the old shape decode to the same record.
        #expect(try JSONDecoder().decode(TransitionRecord.self, from: oldBytes) == record)
    }

    @Test func decodingSaysWhichFieldIsMissing() throws {
        let record = TransitionRecord(sequence: 7, session: SessionID("s-1"), version: 5, transition: draft())
        var object = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(record)) as? [String: Any])
        for key in ["version", "machine"] {
            var damaged = object
            damaged[key] = nil
            let bytes = try JSONSerialization.data(withJSONObject: damaged)
            #expect {
                try JSONDecoder().decode(TransitionRecord.self, from: bytes)
            } throws: { error in
                guard case DecodingError.keyNotFound(let missing, _) = error else { return false }
                return missing.stringValue == key
            }
        }
        object["origin"] = nil
        #expect(
            try JSONDecoder().decode(TransitionRecord.self, from: JSONSerialization.data(withJSONObject: object))
                == record)
    }
}

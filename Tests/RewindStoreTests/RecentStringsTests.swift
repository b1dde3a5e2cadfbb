import RewindBaseTestSupport
@_spi(Internals) import RewindStore
import Testing

@Suite("Recent strings")
struct RecentStringsTests {
    /// Decodes each of `records` through one memory and alone: the two must be the same record.
    private func expectDecodedThroughOneMemory(_ records: [TransitionRecord]) throws {
        var recent = RecentStrings()
        for record in records {
            let bytes = RecordCodec.encode(record)
            try bytes.withUnsafeBytes { buffer in
                let view = try RecordView(buffer, sequence: record.sequence)
                let remembered = view.record(reusing: &recent)
                #expect(remembered == record)
                // Equal as Swift strings is not enough (é composed or not compares equal): the
                // store tells texts apart by their bytes, and so does the encoding.
                #expect(RecordCodec.encode(remembered) == bytes)
            }
        }
    }

    private func record(
        _ sequence: UInt64, event: String, source: [String] = ["a"], target: [String] = ["b"],
        definition: String = "v1", navigation: [NavigationOperation] = []
    ) -> TransitionRecord {
        TransitionRecord(
            sequence: sequence, session: "s", version: sequence,
            timestamp: Timestamp(microsecondsSince1970: 1), machine: "m", definition: definition, event: event,
            source: source, target: target, navigation: navigation, payload: [], stateData: [], origin: nil)
    }

    @Test func randomRecordsDecodeThroughOneMemoryAsAlone() throws {
        var random = SeededRandom(seed: 2_026)
        let records = try (1...2_000 as ClosedRange<UInt64>).map { sequence in
            try RecordViewTests.randomRecord(sequence: sequence, using: &random)
        }
        try expectDecodedThroughOneMemory(records)
    }

    /// Texts a memory keyed by part of their bytes could mix up: the same ends around a different
    /// middle, a zero byte against its absence, one string against the
    /// same bytes split in two, canonically equivalent texts with other bytes.
    @Test func textsThatShareTheirEndsAreToldApart() throws {
        let long = "abcdefgh" + "-middle-" + "ijklmnop"
        let sameEnds = "abcdefgh" + "-MIDDLE-" + "ijklmnop"
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        var records: [TransitionRecord] = []
        let pairs: [(String, String)] = [
            (long, sameEnds), ("ab", "ab\u{0}"), ("", "\u{0}"), (composed, decomposed),
            (String(repeating: "x", count: 16), String(repeating: "x", count: 17)),
        ]
        for (first, second) in pairs {
            for event in [first, second, first, second] {
                records.append(record(UInt64(records.count + 1), event: event))
            }
        }
        for (source, target) in [(["ab"], ["a", "b"]), (["a", "b"], ["ab"]), ([long], [sameEnds]), ([], [""])] {
            records.append(record(UInt64(records.count + 1), event: "e", source: source, target: target))
            records.append(record(UInt64(records.count + 1), event: "e", source: target, target: source))
        }
        for definition in [long, sameEnds, long] {
            records.append(
                record(
                    UInt64(records.count + 1), event: "e", definition: definition,
                    navigation: [.push(long), .push(sameEnds)]))
        }
        try expectDecodedThroughOneMemory(records)
    }

    /// More names and lists than the memory keeps, so that it starts over, cycling, with one list
    /// met again and again in between (found again after each start over): every record still
    /// decodes as alone.
    @Test func moreNamesThanTheMemoryKeepsStillDecodeAsAlone() throws {
        let names = (0..<(RecentStrings.maximumRemembered + 500)).map { "state-\($0)" }
        let records = (0..<(3 * names.count)).map { index in
            record(
                UInt64(index + 1), event: names[(index * 7) % names.count], source: [names[index % names.count]],
                // Not among the first lists: its index differs from one era of the memory to the next.
                target: index > 10 && index.isMultiple(of: 3)
                    ? ["home", "list"] : [names[(index + 1) % names.count], names[(index * 3) % names.count]])
        }
        try expectDecodedThroughOneMemory(records)
    }
}

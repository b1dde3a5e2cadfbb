import Foundation
import RewindWire
import Testing

/// The ingestion endpoints' bodies, as the server writes them and the uploader reads them.
@Suite struct IngestionShapesTests {
    @Test func aPositionFromAServerOlderThanMayUploadStillReads() throws {
        let store = UUID()
        let body = #"{"storeID":"\#(store.uuidString)","nextSequence":12}"#
        let position = try JSONDecoder().decode(StorePosition.self, from: Data(body.utf8))
        #expect(position == StorePosition(storeID: store, nextSequence: 12, mayUpload: nil))
    }

    @Test func erasureNoticesKeepTheirKindsNumbersAndRanges() throws {
        let body = ErasureNoticesBody(notices: [
            .init(number: 1, kind: .session, erasedAt: "2026-11-29T00:00:00Z", ranges: [[1, 4], [9, 9]]),
            .init(number: 2, kind: .records, erasedAt: "2026-11-29T00:00:01Z", ranges: [[5, 8]]),
            .init(number: 3, kind: .retention, erasedAt: "2026-11-29T00:00:02Z", ranges: []),
        ])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(body), as: UTF8.self)
        #expect(
            json.contains(#""kind":"session""#) && json.contains(#""kind":"records""#)
                && json.contains(#""kind":"retention""#))
        #expect(try JSONDecoder().decode(ErasureNoticesBody.self, from: Data(json.utf8)) == body)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(
                ErasureNoticesBody.self,
                from: Data(#"{"notices":[{"number":1,"kind":"everything","erasedAt":"x","ranges":[]}]}"#.utf8))
        }
    }
}

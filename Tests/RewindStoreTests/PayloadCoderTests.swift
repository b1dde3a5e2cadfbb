import Testing
import RewindStore

@Suite("Payload coder")
struct PayloadCoderTests {
    struct Profile: Codable, Equatable {
        var name: String
        var age: Int
    }

    @Test func jsonCoderRoundTripsWithSortedKeys() throws {
        let coder = JSONPayloadCoder()
        let bytes = try coder.encode(Profile(name: "Ada", age: 36))
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"age":36,"name":"Ada"}"#)
        #expect(try coder.decode(Profile.self, from: bytes) == Profile(name: "Ada", age: 36))
    }

    @Test func payloadsEncodedThroughTheStoresCoderRoundTripThroughTheLog() throws {
        try withStore { store, _ throws in
            let profile = Profile(name: "Grace", age: 45)
            var transition = onboarding[0]
            transition.payload = try store.coder.encode(profile)
            try store.append([transition], to: try session("s"))
            let record = try #require(try store.record(at: 1))
            #expect(try store.coder.decode(Profile.self, from: record.payload) == profile)
        }
    }
}

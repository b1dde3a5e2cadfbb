import RewindStore
import Testing

@Suite("Store map growth")
struct StoreMapGrowthTests {
    @Test func appendingFarPastATinyMapGrowsItAndKeepsEveryRecord() throws {
        let tiny = StoreConfiguration(environment: EnvironmentConfiguration(mapSize: 64 << 10, options: .noSync))
        try withStore(configuration: tiny) { store, _ throws in
            let payload = [UInt8](repeating: 0x42, count: 2048)
            for index in 0..<40 {
                let s = try session("s\(index % 4)")
                try store.append((0..<10).map { _ in step("tick", from: ["a"], to: ["a"], payload: payload) }, to: s)
            }
            let stats = try store.statistics()
            #expect(stats.mapSize >= 1 << 20)  // 800 KiB of payloads alone exceed 64 KiB
            #expect(try store.headSequence() == 400)
            let records = try store.records()
            #expect(records.map(\.sequence) == Array(1...400))
            #expect(records.allSatisfy { $0.payload == payload })
            #expect(try store.sessions().map(\.headVersion) == [100, 100, 100, 100])
        }
    }
}

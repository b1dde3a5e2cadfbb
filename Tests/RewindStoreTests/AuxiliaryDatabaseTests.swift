import RewindStore
import Testing

@Suite("Auxiliary databases")
struct AuxiliaryDatabaseTests {
    struct Planned: Error {}

    @Test func auxiliaryWritesCommitWithTheAppend() throws {
        try withStore { store, _ throws in
            let s = try session("s")
            try store.write { tx throws in
                let result = try tx.append(onboarding, to: s)
                try tx.put([9, 9], forKey: StoreKey.compound("s", result.lastVersion), in: .snapshots)
                try tx.put(StoreKey.uint64(result.lastSequence), forKey: Array("screens".utf8), in: .checkpoints)
            }
            try store.read { tx throws in
                #expect(try tx.value(forKey: StoreKey.compound("s", 3), in: .snapshots) == [9, 9])
                let checkpoint = try tx.withValue(forKey: Array("screens".utf8), in: .checkpoints) {
                    StoreKey.uint64(from: $0)
                }
                #expect(checkpoint == 3)
            }
        }
    }

    @Test func aThrowingWriteDiscardsBothTheAppendAndTheAuxiliaryWrites() throws {
        try withStore { store, _ throws in
            #expect(throws: Planned.self) {
                try store.write { tx throws in
                    try tx.append(onboarding, to: try session("s"))
                    try tx.put([1], forKey: [1], in: .projections)
                    throw Planned()
                }
            }
            #expect(try store.headSequence() == 0)
            #expect(try store.read { try $0.value(forKey: [1], in: .projections) } == nil)
        }
    }

    @Test func auxiliaryDatabasesIterateDeleteAndClear() throws {
        try withStore { store, _ throws in
            try store.write { tx throws in
                for version in 1...5 as ClosedRange<UInt64> {
                    try tx.put([UInt8(version)], forKey: StoreKey.compound("m", version), in: .definitions)
                }
            }
            var newestFirst: [UInt64] = []
            try store.read { tx throws in
                try tx.forEach(in: .definitions, from: StoreKey.compound("m", 4), direction: .backward) { key, _ in
                    newestFirst.append(StoreKey.splitCompound(key)?.number ?? 0)
                    return .next
                }
            }
            #expect(newestFirst == [4, 3, 2, 1])
            try store.write { tx throws in
                #expect(try tx.delete(StoreKey.compound("m", 1), in: .definitions))
                #expect(try !tx.delete(StoreKey.compound("m", 1), in: .definitions))
            }
            try store.write { try $0.removeAll(in: .definitions) }
            #expect(try store.read { try $0.value(forKey: StoreKey.compound("m", 2), in: .definitions) } == nil)
        }
    }
}

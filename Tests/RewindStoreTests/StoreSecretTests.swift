import Testing

@testable import RewindStore

@Suite("The store's secret")
struct StoreSecretTests {
    @Test func aStoreHasNoSecretUntilSomethingNeedsOne() throws {
        try withStore { store, _ throws in
            _ = try store.write { tx throws in try tx.append(onboarding, to: try session("s")) }
            #expect(try store.read { try $0.storeSecret() } == nil)
        }
    }

    @Test func theSecretIsMadeOnceAndKept() throws {
        try withStore { store, _ throws in
            let made = try store.write { try $0.storeSecretCreatingIfNeeded() }
            #expect(made.count == StoreLayout.secretLength)
            #expect(Set(made).count > 1)
            let again = try store.write { try $0.storeSecretCreatingIfNeeded() }
            #expect(again == made)
            #expect(try store.read { try $0.storeSecret() } == made)
        }
    }

    @Test func twoStoresHaveDifferentSecrets() throws {
        let first = try withStore { store, _ throws in try store.write { try $0.storeSecretCreatingIfNeeded() } }
        let second = try withStore { store, _ throws in try store.write { try $0.storeSecretCreatingIfNeeded() } }
        #expect(first != second)
    }

    @Test func aSecretOfTheWrongLengthIsACorruptedEntry() throws {
        try withStore { store, _ throws in
            try store.write { tx throws in
                try tx.writeTransaction.put([1, 2, 3], forKey: StoreLayout.secretKey, in: tx.databases.meta)
            }
            #expect(throws: StoreError.self) { try store.read { try $0.storeSecret() } }
        }
    }
}

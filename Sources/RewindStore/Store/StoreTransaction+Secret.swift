import RewindLMDB

/// The store's secret: 32 random bytes in `meta`, made the first time something needs them and
/// never exported, uploaded or shown. It keys the hashes that must not be reversible or
/// recomputable outside the store: erasure tombstones (an erased session id is recognised without
/// being kept) and redaction's keyed hashes (equal values stay equal, but cannot be guessed).
extension StoreReadTransaction {
    /// The store's secret, or `nil` when nothing has needed one yet.
    /// - Throws: ``StoreError/corruptedEntry(database:key:reason:)`` when it is not 32 bytes.
    package func storeSecret() throws -> [UInt8]? {
        guard let bytes = try transaction.get(StoreLayout.secretKey, in: databases.meta) else { return nil }
        guard bytes.count == StoreLayout.secretLength else {
            throw StoreError.corruptedEntry(
                database: StoreLayout.meta, key: "'secret'",
                reason: "\(bytes.count) bytes instead of \(StoreLayout.secretLength)")
        }
        return bytes
    }
}

extension StoreWriteTransaction {
    /// The store's secret, made (from the system's cryptographic random source) and written in
    /// this transaction when the store has none yet.
    package func storeSecretCreatingIfNeeded() throws -> [UInt8] {
        if let secret = try storeSecret() { return secret }
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<StoreLayout.secretLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        try writeTransaction.put(secret, forKey: StoreLayout.secretKey, in: databases.meta)
        return secret
    }
}

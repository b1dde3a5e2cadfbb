import RewindLMDB

/// The auxiliary databases (snapshots, definitions, projections, checkpoints) of the layers above.
extension StoreReadTransaction {
    /// A copy of the value under `key` in `database`, or `nil`.
    public func value(forKey key: [UInt8], in database: AuxiliaryDatabase) throws -> [UInt8]? {
        try transaction.get(key, in: databases.handle(for: database))
    }

    /// Lends the value under `key` in `database` to `body` (valid only during `body`), or returns
    /// `nil` when the key is absent.
    public func withValue<R>(
        forKey key: [UInt8], in database: AuxiliaryDatabase, _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        try transaction.withValue(forKey: key, in: databases.handle(for: database), body)
    }

    /// Lends the value under the borrowed `key` in `database` to `body`, or returns `nil`.
    package func withValue<R>(
        forKey key: UnsafeRawBufferPointer, in database: AuxiliaryDatabase, _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        try transaction.withValue(forKey: key, in: databases.handle(for: database), body)
    }

    /// Iterates `database` from `start` in `direction` (see `ReadTransaction.forEach`), lending
    /// each key and value to `body`.
    public func forEach(
        in database: AuxiliaryDatabase, from start: [UInt8]? = nil, direction: IterationDirection = .forward,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> IterationControl
    ) throws {
        try transaction.forEach(in: databases.handle(for: database), from: start, direction: direction, body)
    }
}

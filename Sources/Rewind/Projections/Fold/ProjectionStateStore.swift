import RewindStore

/// Where a projection's fold reads the stored state of a key it has not seen yet: a device's LMDB
/// transaction (the store's `projections` database) or the fleet server's chunk of states loaded
/// from PostgreSQL for the records it folds. The one fold driver (``ProjectionFold``) reads
/// states only through this, so a device and a server fold the same records into the same states.
@_spi(Internals) public protocol ProjectionStateReading {
    /// Calls `body` with the stored bytes of the state of `key` (its UTF-8, at most 400 bytes) of
    /// projection `projection`, or with `nil` when none is stored, and returns what it returns.
    /// The bytes are valid only during `body`.
    ///
    /// - Throws: the store's errors, and what `body` throws.
    func withStoredState<R>(
        of projection: String, key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer?) throws -> R
    ) throws -> R
}

/// Where a projection's fold writes the states it changed: a device's LMDB write transaction, or
/// the fleet server's chunk, written to PostgreSQL in the transaction that moves the checkpoint.
@_spi(Internals) public protocol ProjectionStateWriting {
    /// Stores `bytes` as the state of `key` of projection `projection`, or deletes the key's state
    /// when `bytes` is `nil`.
    ///
    /// - Throws: the store's errors.
    func storeState(_ bytes: [UInt8]?, of projection: String, key: String) throws
}

/// The key of a projection's state in the `projections` database: name, NUL, state key.
enum ProjectionKeys {
    static let maximumNameBytes = 100
    static let maximumKeyBytes = 400

    static func prefix(_ name: String) -> [UInt8] {
        var bytes = Array(name.utf8)
        bytes.append(0)
        return bytes
    }

    static func validate(name: String) throws {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= maximumNameBytes, !bytes.contains(0) else {
            throw ProjectionError.invalidName(name)
        }
    }

    /// Calls `body` with the store key of `key` of projection `projection` (built on the stack).
    static func withStoreKey<R>(
        of projection: String, key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R {
        var name = projection
        return try name.withUTF8 { name in
            try withUnsafeTemporaryAllocation(byteCount: name.count + 1 + key.count, alignment: 1) { buffer in
                buffer.copyMemory(from: UnsafeRawBufferPointer(name))
                buffer[name.count] = 0
                if !key.isEmpty {
                    UnsafeMutableRawBufferPointer(rebasing: buffer[(name.count + 1)...]).copyMemory(from: key)
                }
                return try body(UnsafeRawBufferPointer(buffer))
            }
        }
    }
}

/// A device's projection states: the `projections` database of the transaction.
@_spi(Internals) extension StoreReadTransaction: ProjectionStateReading {
    /// Lends the state stored in the `projections` database.
    public func withStoredState<R>(
        of projection: String, key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer?) throws -> R
    ) throws -> R {
        try ProjectionKeys.withStoreKey(of: projection, key: key) { storeKey in
            if let found = try withValue(forKey: storeKey, in: .projections, { value in try body(value) }) {
                return found
            }
            return try body(nil)
        }
    }
}

/// A device's projection states, written in the append's (or the catch-up's) write transaction.
@_spi(Internals) extension StoreWriteTransaction: ProjectionStateWriting {
    /// Puts or deletes the state in the `projections` database.
    public func storeState(_ bytes: [UInt8]?, of projection: String, key: String) throws {
        var storeKey = ProjectionKeys.prefix(projection)
        storeKey.append(contentsOf: key.utf8)
        if let bytes {
            try put(bytes, forKey: storeKey, in: .projections)
        } else {
            try delete(storeKey, in: .projections)
        }
    }
}

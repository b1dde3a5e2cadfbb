import RewindStore

/// The states a fold has read or changed, by key (looked up by the key's UTF-8, see
/// ``UTF8KeyTable``), with the keys changed since the last write in first-change order. Shared
/// by the general ``ProjectionFold`` and the built-in projections' folds over record views.
struct FoldStates<State> {
    /// The projection's name.
    let name: String
    private var table = UTF8KeyTable()
    /// The state of each key, by the key's index (`nil`: none, or deleted).
    var states: [State?] = []
    private var isDirty: [Bool] = []
    private var dirty: [Int] = []
    /// The reused key buffer: the name's prefix, then a state key.
    private var keyBuffer: [UInt8]
    private let prefixCount: Int

    /// The most states a fold keeps in memory between writes (a rebuild over many sessions).
    static var maximumCachedStates: Int { 200_000 }

    init(name: String) {
        self.name = name
        self.keyBuffer = ProjectionKeys.prefix(name)
        self.prefixCount = keyBuffer.count
    }

    /// The key at `index`.
    func key(at index: Int) -> String { table.keys[index] }

    /// The index of the key whose UTF-8 is `bytes`, or `nil` when it was not read yet.
    @inline(__always)
    mutating func index(of bytes: UnsafeRawBufferPointer) -> Int? {
        table.index(of: bytes)
    }

    /// Reads the stored state of `key` (absent from the table, UTF-8 `bytes`) with `decode` and
    /// adds it, returning its index.
    ///
    /// - Throws: ``ProjectionError/invalidKey(projection:key:)``,
    ///   ``ProjectionError/corruptedState(projection:key:cause:)``; LMDB's errors.
    mutating func load(
        _ key: String, bytes: UnsafeRawBufferPointer, from transaction: StoreReadTransaction,
        decode: (UnsafeRawBufferPointer) throws -> State
    ) throws -> Int {
        let storeKey = try self.storeKey(bytes, key: key)
        let name = self.name
        let state = try transaction.withValue(forKey: storeKey, in: .projections) { value -> State in
            do {
                return try decode(value)
            } catch {
                throw ProjectionError.corruptedState(projection: name, key: key, cause: ErrorCause(error))
            }
        }
        let index = table.insert(key, bytes: bytes)
        states.append(state)
        isDirty.append(false)
        return index
    }

    /// Notes that the state at `index` changed.
    @inline(__always)
    mutating func markDirty(_ index: Int) {
        if !isDirty[index] {
            isDirty[index] = true
            dirty.append(index)
        }
    }

    /// Writes (or deletes) every state changed since the last write, encoding them all with
    /// `encode` before writing any; then forgets the states if there are too many to keep.
    ///
    /// - Throws: ``ProjectionError/stateEncodingFailed(projection:key:cause:)`` before writing
    ///   anything, LMDB's errors.
    mutating func write(
        to transaction: StoreWriteTransaction, encode: (State, inout [UInt8]) throws -> Void
    ) throws {
        var encoded: [(key: [UInt8], value: [UInt8]?)] = []
        encoded.reserveCapacity(dirty.count)
        for index in dirty {
            let key = table.keys[index]
            var value: [UInt8]?
            if let state = states[index] {
                var bytes: [UInt8] = []
                do {
                    try encode(state, &bytes)
                } catch {
                    throw ProjectionError.stateEncodingFailed(projection: name, key: key, cause: ErrorCause(error))
                }
                value = bytes
            }
            var utf8 = key
            let storeKey = try utf8.withUTF8 { try self.storeKey(UnsafeRawBufferPointer($0), key: key) }
            encoded.append((storeKey, value))
        }
        for (key, value) in encoded {
            if let value {
                try transaction.put(value, forKey: key, in: .projections)
            } else {
                try transaction.delete(key, in: .projections)
            }
        }
        if table.count > Self.maximumCachedStates {
            // Everything is written: forget the states rather than grow without bound (they are
            // read again from the store when needed).
            table.removeAll()
            states.removeAll()
            isDirty.removeAll()
        } else {
            for index in dirty { isDirty[index] = false }
        }
        dirty.removeAll(keepingCapacity: true)
    }

    private mutating func storeKey(_ bytes: UnsafeRawBufferPointer, key: String) throws -> [UInt8] {
        guard bytes.count <= ProjectionKeys.maximumKeyBytes else {
            throw ProjectionError.invalidKey(projection: name, key: key)
        }
        keyBuffer.removeSubrange(prefixCount...)
        keyBuffer.append(contentsOf: bytes)
        return keyBuffer
    }
}

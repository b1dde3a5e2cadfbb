import RewindStore
@_spi(Internals) import RewindValues

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

    /// The most states a fold keeps in memory between writes (a rebuild over many sessions).
    static var maximumCachedStates: Int { 200_000 }

    init(name: String) {
        self.name = name
    }

    /// The key at `index`.
    func key(at index: Int) -> String { table.keys[index] }

    /// The index of the key whose UTF-8 is `bytes`, or `nil` when it was not read yet.
    @inline(__always)
    mutating func index(of bytes: UnsafeRawBufferPointer) -> Int? {
        table.index(of: bytes)
    }

    /// Reads the stored state of `key` (absent from the table, UTF-8 `bytes`) from `stored` with
    /// `decode` and adds it, returning its index.
    ///
    /// - Throws: ``ProjectionError/invalidKey(projection:key:)``,
    ///   ``ProjectionError/corruptedState(projection:key:cause:)``; the state store's errors.
    mutating func load(
        _ key: String, bytes: UnsafeRawBufferPointer, from stored: some ProjectionStateReading,
        decode: (UnsafeRawBufferPointer) throws -> State
    ) throws -> Int {
        guard bytes.count <= ProjectionKeys.maximumKeyBytes else {
            throw ProjectionError.invalidKey(projection: name, key: key)
        }
        let name = self.name
        let state = try stored.withStoredState(of: name, key: bytes) { value -> State? in
            guard let value else { return nil }
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

    /// Writes (or deletes) every state changed since the last write to `writer`, encoding them
    /// all with `encode` before writing any; then forgets the states if there are too many to keep.
    ///
    /// - Throws: ``ProjectionError/stateEncodingFailed(projection:key:cause:)`` before writing
    ///   anything, the state store's errors.
    mutating func write(
        to writer: some ProjectionStateWriting, encode: (State, inout [UInt8]) throws -> Void
    ) throws {
        var encoded: [(key: String, value: [UInt8]?)] = []
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
            encoded.append((key, value))
        }
        for (key, value) in encoded {
            try writer.storeState(value, of: name, key: key)
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
}

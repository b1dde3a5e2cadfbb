/// HMAC-SHA-256 (RFC 2104 with ``SHA256``): a keyed hash. Rewind keys it with a store's secret, so
/// an erasure tombstone can recognise an erased session id without keeping it, and redaction can
/// replace a value with a hash that stays equal for equal values but cannot be reversed or
/// recomputed without the secret.
package struct HMACSHA256 {
    /// The block size of SHA-256 in bytes.
    private static let blockSize = 64
    private var inner = SHA256()
    private var outerKey: [UInt8]

    /// A hasher keyed with `key` (any length; keys longer than a block are hashed first).
    package init(key: some Collection<UInt8>) {
        var block: [UInt8]
        if key.count > Self.blockSize {
            var hasher = SHA256()
            hasher.update(key)
            block = hasher.finalize()
        } else {
            block = Array(key)
        }
        block += [UInt8](repeating: 0, count: Self.blockSize - block.count)
        inner.update(block.map { $0 ^ 0x36 })
        outerKey = block.map { $0 ^ 0x5c }
    }

    /// The 32-byte code of `message` under `key`.
    package static func authenticationCode(of message: some Sequence<UInt8>, key: some Collection<UInt8>) -> [UInt8] {
        var hasher = HMACSHA256(key: key)
        hasher.update(message)
        return hasher.finalize()
    }

    /// Adds bytes to the message.
    package mutating func update(_ bytes: some Sequence<UInt8>) {
        inner.update(bytes)
    }

    /// The 32-byte code of the message.
    package mutating func finalize() -> [UInt8] {
        var outer = SHA256()
        outer.update(outerKey)
        outer.update(inner.finalize())
        return outer.finalize()
    }
}

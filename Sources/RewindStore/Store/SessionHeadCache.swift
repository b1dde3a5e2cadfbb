import Foundation

/// The `sessions` entries this process last wrote, decoded: an append finds its session's entry in
/// LMDB as before, and when the stored bytes are exactly the ones remembered it takes the decoded
/// head from here instead of decoding (and checksumming) them again.
///
/// It is only ever a shortcut for the decode: a remembered entry counts only when LMDB holds the
/// very same bytes, so an entry written by another process (or left out by an aborted
/// transaction) is decoded as usual.
final class SessionHeadCache: @unchecked Sendable {
    // Concurrency: `entries` is guarded by `lock`.
    private let lock = NSLock()
    private var entries: [String: (bytes: [UInt8], head: SessionHead)] = [:]
    /// Beyond this many sessions the cache starts over (it is a shortcut, not a registry).
    private let capacity: Int

    init(capacity: Int = 4_096) {
        self.capacity = capacity
    }

    /// The decoded head of `session` if `stored` are the bytes remembered for it.
    func head(for session: SessionID, stored: UnsafeRawBufferPointer) -> SessionHead? {
        lock.withLock {
            guard let entry = entries[session.rawValue], entry.bytes.count == stored.count else { return nil }
            let same = entry.bytes.withUnsafeBytes { remembered in
                guard let left = remembered.baseAddress, let right = stored.baseAddress else { return stored.isEmpty }
                return memcmp(left, right, stored.count) == 0
            }
            return same ? entry.head : nil
        }
    }

    /// Remembers that `head` was written as `bytes`.
    func remember(_ head: SessionHead, as bytes: [UInt8]) {
        lock.withLock {
            if entries.count >= capacity && entries[head.info.session.rawValue] == nil {
                entries.removeAll(keepingCapacity: true)
            }
            entries[head.info.session.rawValue] = (bytes, head)
        }
    }
}

import Foundation

/// The fleet server's answer to an accepted batch (`POST /v1/stores/{store}/records`, 200).
public struct IngestionResult: Sendable, Equatable, Codable {
    /// The device store.
    public var storeID: UUID
    /// The global sequence the server expects next from this store (one past the last it holds).
    public var nextSequence: UInt64
    /// How many of the batch's records were stored now.
    public var stored: Int
    /// How many the server held already (the same bytes, sent again).
    public var alreadyHeld: Int
    /// How many were dropped because they were erased: at a sequence of the store's erased
    /// ranges, or of a session the app erased (a tombstone). Acknowledged, never stored.
    public var erased: Int

    /// A result from its parts.
    public init(storeID: UUID, nextSequence: UInt64, stored: Int, alreadyHeld: Int, erased: Int = 0) {
        self.storeID = storeID
        self.nextSequence = nextSequence
        self.stored = stored
        self.alreadyHeld = alreadyHeld
        self.erased = erased
    }
}

/// The fleet server's answer to `GET /v1/stores/{store}/position`: where an upload continues.
public struct StorePosition: Sendable, Equatable, Codable {
    /// The device store.
    public var storeID: UUID
    /// The global sequence the server expects next from this store (1 when it holds none).
    public var nextSequence: UInt64
    /// Whether the asking key may upload (an ingestion key); `nil` from servers older than this
    /// field.
    public var mayUpload: Bool?

    /// A position from its parts.
    public init(storeID: UUID, nextSequence: UInt64, mayUpload: Bool?) {
        self.storeID = storeID
        self.nextSequence = nextSequence
        self.mayUpload = mayUpload
    }
}

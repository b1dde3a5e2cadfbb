/// The key/value databases the store creates next to the log, for the layers above it. They are
/// written in the same LMDB transactions as appends (see ``StoreWriteTransaction``).
public enum AuxiliaryDatabase: String, Sendable, Hashable, CaseIterable {
    /// Session snapshots (e.g. key: ``StoreKey/compound(_:_:)`` of session and version).
    case snapshots
    /// Projection states.
    case projections
    /// Projection checkpoints (the last global sequence each projection has applied).
    case checkpoints
    /// Machine definitions, by name and content version.
    case definitions

    /// The LMDB database name.
    public var name: String { rawValue }
}

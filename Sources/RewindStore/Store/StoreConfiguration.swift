import RewindLMDB

/// How a ``TransitionStore`` is opened.
public struct StoreConfiguration: Sendable {
    /// The LMDB environment's configuration: map size and its growth bound, readers, durability.
    /// At least ``StoreLayout/minimumDatabases`` named databases are always allowed.
    public var environment: EnvironmentConfiguration
    /// The coder callers use (through ``TransitionStore/coder``) for payloads and state data.
    public var coder: any PayloadCoder
    /// How many records the log may run ahead of the `sessions` entries before an append's
    /// transaction writes them out (see ``StoreLayout/sessionsThroughKey``). Entries that lag
    /// save a commit the write of one B-tree per session (a durable one-per-commit append then
    /// changes only the log); a reader pays for them once per snapshot, reading at most this many
    /// records. 0 writes every append's entry with it. Processes sharing a store may differ.
    public var maximumSessionTail: Int

    /// Whether the store is opened read-only (``EnvironmentOptions/readOnly`` of
    /// ``environment``): nothing is created, migrated or written, writes throw, and a store on
    /// read-only media or with read-only files can be read. Default `false`.
    public var readOnly: Bool {
        get { environment.options.contains(.readOnly) }
        set {
            if newValue { environment.options.insert(.readOnly) } else { environment.options.remove(.readOnly) }
        }
    }

    /// Whether every page LMDB could read is checked before the store opens
    /// (``EnvironmentOptions/checkPages`` of ``environment``): a damaged page throws
    /// `DamagedPageError` instead of crashing the process when LMDB reads it. It reads every page
    /// in use once: for tools opening a store that may be damaged. Default `false`.
    public var checksPages: Bool {
        get { environment.options.contains(.checkPages) }
        set {
            if newValue { environment.options.insert(.checkPages) } else { environment.options.remove(.checkPages) }
        }
    }

    /// Creates a configuration: durable by default, JSON payloads, entries at most 256 records behind.
    public init(
        environment: EnvironmentConfiguration = EnvironmentConfiguration(),
        coder: any PayloadCoder = JSONPayloadCoder(), maximumSessionTail: Int = 256
    ) {
        self.environment = environment
        self.coder = coder
        self.maximumSessionTail = maximumSessionTail
    }
}

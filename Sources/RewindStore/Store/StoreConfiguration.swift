/// How a ``TransitionStore`` is opened.
public struct StoreConfiguration: Sendable {
    /// The LMDB environment's configuration: map size and its growth bound, readers, durability.
    /// At least ``StoreLayout/minimumDatabases`` named databases are always allowed.
    public var environment: EnvironmentConfiguration
    /// The coder callers use (through ``TransitionStore/coder``) for payloads and state data.
    public var coder: any PayloadCoder

    /// Creates a configuration: durable by default, JSON payloads.
    public init(environment: EnvironmentConfiguration = EnvironmentConfiguration(),
                coder: any PayloadCoder = JSONPayloadCoder()) {
        self.environment = environment
        self.coder = coder
    }
}

/// A machine state's remembered row in a ``PreparedTable``: the index of its configuration, or
/// `-1` when unknown.
///
/// It is a cache, not part of the state's value: every instance equals every other and hashes to
/// nothing, so ``MachineState``'s synthesized `Equatable` and `Hashable` conformances (and its
/// `Codable` one, whose coding keys leave it out) behave as if it did not exist. A stale hint is
/// harmless: the prepared send compares the row's configuration with the state's before using it.
struct ConfigurationHint: Hashable, Sendable {
    /// The row of the configuration in the table it was found in; `-1` when unknown.
    var row: Int32 = -1

    /// Always `true`: hints never make two states differ.
    static func == (lhs: ConfigurationHint, rhs: ConfigurationHint) -> Bool { true }

    /// Adds nothing: hints never change a state's hash.
    func hash(into hasher: inout Hasher) {}
}

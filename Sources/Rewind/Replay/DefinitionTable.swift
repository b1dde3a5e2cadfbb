/// Values by definition content version that remember the last one found: a session's records
/// nearly all name one definition, and a dictionary hashes the 64-character name on every
/// lookup (about 700 instructions a record of an import, twice: callgrind, Benchmarks/HISTORY.md
/// 2026-11-30). A repeated name is compared with the last one instead.
struct DefinitionTable<Value> {
    private var values: [String: Value]
    private var lastDefinition: String?
    private var lastValue: Value?

    /// A table of `values`.
    init(_ values: [String: Value] = [:]) {
        self.values = values
    }

    /// The value of `definition`, if any.
    mutating func value(for definition: String) -> Value? {
        if lastDefinition == definition, let lastValue { return lastValue }
        guard let value = values[definition] else { return nil }
        (lastDefinition, lastValue) = (definition, value)
        return value
    }

    /// Makes `value` the value of `definition`.
    mutating func set(_ value: Value, for definition: String) {
        values[definition] = value
        (lastDefinition, lastValue) = (definition, value)
    }
}

extension DefinitionTable: Sendable where Value: Sendable {}

import RewindMachine

/// A migration an app declares for a changed machine definition: what moves a session whose
/// recorded state the new definition cannot take as it stands (a renamed, removed or moved state)
/// forward. Register it with the machine, ``Engine/register(_:as:migrations:)``:
///
/// ```swift
/// try engine.register(checkoutV2, migrations: [
///     DefinitionMigration("cart becomes basket", renaming: ["cart": "basket"]),
///     DefinitionMigration("wizard in a group") { snapshot in
///         snapshot.state.configuration.insert("wizard", at: 0)
///     },
/// ])
/// ```
///
/// When a session recorded under another definition resumes (``ResumePolicy/upgradeWhenCompatible``,
/// the default), every registered migration that applies to the definition it was recorded under
/// runs, in the order given: first its renames (old id → new id, applied to the configuration,
/// history memory — its keys and the states it restores —, state data and navigation screens),
/// then its `transform`. The result must then be a state of the registered definition (see
/// *Durable sessions*, "Upgrades"), or resuming throws
/// ``EngineError/incompatibleDefinition(session:machine:recorded:registered:problems:)``. The
/// migration's outcome is appended as the session's `rewind.migrate` record, naming the
/// migrations by ``name``, so replay shows it without the app's code.
public struct DefinitionMigration: Sendable {
    /// The migration's name, written in the migration record.
    public var name: String
    /// The content version of the definition it migrates from; `nil`: any other definition.
    public var from: String?
    /// Old state id → new state id.
    public var renamed: [String: String]
    /// Changes the session's state after the renames (`nil`: none). Change its `state` and
    /// `navigation`; its version, definition and timestamp are kept. Throwing stops the resume
    /// with ``EngineError/migrationFailed(session:migration:cause:)``.
    public var transform: (@Sendable (inout SessionSnapshot) throws -> Void)?

    /// Creates a migration named `name` from the definition with content version `from` (any
    /// other definition when `nil`) that renames states by `renaming` and then runs `transform`.
    public init(
        _ name: String, from: String? = nil, renaming: [String: String] = [:],
        transform: (@Sendable (inout SessionSnapshot) throws -> Void)? = nil
    ) {
        self.name = name
        self.from = from
        self.renamed = renaming
        self.transform = transform
    }

    /// Whether it migrates sessions recorded under the definition `definition`.
    func applies(to definition: String) -> Bool {
        from == nil || from == definition
    }

    /// `snapshot` with this migration's renames applied.
    func renaming(_ snapshot: SessionSnapshot) -> SessionSnapshot {
        guard !renamed.isEmpty else { return snapshot }
        func name(_ id: String) -> String { renamed[id] ?? id }
        var result = snapshot
        result.state.configuration = snapshot.state.configuration.map(name)
        result.state.history = Dictionary(
            snapshot.state.history.map { (name($0.key), $0.value.map(name)) }, uniquingKeysWith: { first, _ in first })
        result.state.data = Dictionary(
            snapshot.state.data.map { (name($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
        result.navigation = ScreenStack(
            entries: snapshot.navigation.entries.map { NavigationEntry(screen: name($0.screen), data: $0.data) })
        return result
    }
}

import Foundation
import RewindStore

// Every API that takes a session id takes a plain `String` too: these overloads check the text
// (`SessionID.init(_:)`, which throws `StoreError.invalidSessionID(_:reason:)`) and forward to
// the `SessionID` version. A string literal works with either (`SessionID` is
// `ExpressibleByStringLiteral`). The overloads of `session(_:policy:)`, `openSession`,
// `startSession`, `fork`, `replayCursor(for:)` and `player(for:)` live beside their originals.

extension Engine {
    /// Creates a session with a plain string id that has no record yet (see
    /// ``makeSession(id:machine:)``).
    ///
    /// - Throws: ``StoreError/invalidSessionID(_:reason:)``, the errors of
    ///   ``makeSession(id:machine:)``.
    public func makeSession(id: String, machine: String) throws -> Session {
        try makeSession(id: try SessionID(id), machine: machine)
    }

    /// The history of the session with the plain string id `session` (see
    /// ``history(of:filter:limit:)``).
    ///
    /// - Throws: ``StoreError/invalidSessionID(_:reason:)``, the errors of
    ///   ``history(of:filter:limit:)``.
    public func history(of session: String, filter: HistoryFilter = .all, limit: Int = .max) throws -> [HistoryEntry] {
        try history(of: try SessionID(session), filter: filter, limit: limit)
    }

    /// Verifies the session with the plain string id `session` against `machine` (see
    /// ``verify(_:against:)``).
    ///
    /// - Throws: ``StoreError/invalidSessionID(_:reason:)``, the errors of ``verify(_:against:)``.
    public func verify(_ session: String, against machine: Machine) throws -> VerificationReport {
        try verify(try SessionID(session), against: machine)
    }

    /// The archive of the session with the plain string id `session` (see ``exportSession(_:)``).
    ///
    /// - Throws: ``StoreError/invalidSessionID(_:reason:)``, the errors of ``exportSession(_:)``.
    public func exportSession(_ session: String) throws -> Data {
        try exportSession(try SessionID(session))
    }

    /// Writes the archive of the session with the plain string id `session` to the file at `url`
    /// (see ``exportSession(_:to:)``).
    ///
    /// - Throws: ``StoreError/invalidSessionID(_:reason:)``, the errors of ``exportSession(_:to:)``.
    public func exportSession(_ session: String, to url: URL) throws {
        try exportSession(try SessionID(session), to: url)
    }

    /// Imports a session archive as the session with the plain string id `id` (see
    /// ``importSession(_:as:)``).
    ///
    /// - Throws: ``StoreError/invalidSessionID(_:reason:)`` (nothing read or written), the errors
    ///   of ``importSession(_:as:)``.
    @discardableResult
    public func importSession(_ archive: Data, as id: String) async throws -> SessionInfo {
        try await importSession(archive, as: try SessionID(id))
    }

    /// Imports the session archive in the file at `url` as the session with the plain string id
    /// `id` (see ``importSession(from:as:)``).
    ///
    /// - Throws: ``StoreError/invalidSessionID(_:reason:)`` (nothing read or written), the errors
    ///   of ``importSession(from:as:)``.
    @discardableResult
    public func importSession(from url: URL, as id: String) async throws -> SessionInfo {
        try await importSession(from: url, as: try SessionID(id))
    }
}

extension SessionArchive {
    /// Checks `archive` as an import as the session with the plain string id `id` would (see
    /// ``validate(_:as:)``).
    ///
    /// - Throws: ``StoreError/invalidSessionID(_:reason:)``, ``SessionArchiveError``.
    public static func validate(_ archive: Data, as id: String) throws {
        try validate(archive, as: try SessionID(id))
    }
}

extension ReplayPlayer {
    /// Hands the played session over as a live session with the plain string id `newSession`
    /// (see ``handOver(as:policy:)``).
    ///
    /// - Throws: ``StoreError/invalidSessionID(_:reason:)``, the errors of ``handOver(as:policy:)``.
    public func handOver(as newSession: String, policy: ResumePolicy = .upgradeWhenCompatible) async throws -> Session {
        try await handOver(as: try SessionID(newSession), policy: policy)
    }
}

extension NavigationStacks {
    /// The navigation stack of the session with the plain string id `session` (see
    /// ``stack(of:)``).
    ///
    /// - Throws: ``StoreError/invalidSessionID(_:reason:)``, the errors of ``stack(of:)``.
    public func stack(of session: String) throws -> ScreenStack? {
        try stack(of: try SessionID(session))
    }
}

extension ScreenFlows {
    /// The screen flow of the session with the plain string id `session` (see ``flow(of:)``).
    ///
    /// - Throws: ``StoreError/invalidSessionID(_:reason:)``, the errors of ``flow(of:)``.
    public func flow(of session: String) throws -> ScreenFlowProjection.Flow? {
        try flow(of: try SessionID(session))
    }

    /// The current state's data of the session with the plain string id `session` (see
    /// ``stateData(of:)``).
    ///
    /// - Throws: ``StoreError/invalidSessionID(_:reason:)``, the errors of ``stateData(of:)``.
    public func stateData(of session: String) throws -> JSONValue? {
        try stateData(of: try SessionID(session))
    }
}

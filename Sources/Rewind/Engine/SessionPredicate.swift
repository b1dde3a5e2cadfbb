import RewindStore

/// Which sessions an erasure takes (``Engine/erase(where:)``, `rewind erase`): by id, by an id
/// prefix, by a value of the session's context, or by any test of both.
///
/// ```swift
/// // Account deletion: every session the app started for user 42.
/// try engine.erase(where: .context("userID", equals: 42))
/// try engine.erase(where: .idPrefix("user-42/"))
/// ```
public struct SessionPredicate: Sendable {
    /// What a predicate sees of a session.
    public struct Candidate: Sendable {
        /// The session's head (id, machine, versions, times).
        public var info: SessionInfo
        /// The context the session started with (the payload of its `rewind.start` record; for a
        /// session whose history was trimmed, its context at its base version), or
        /// `null` when it has none or it is not JSON.
        public var context: JSONValue
    }

    /// Whether the predicate reads the context (a session's first record is read only then).
    let needsContext: Bool
    let test: @Sendable (Candidate) -> Bool

    /// A predicate of your own over a session's head and context.
    public static func matching(_ test: @escaping @Sendable (Candidate) -> Bool) -> SessionPredicate {
        SessionPredicate(needsContext: true, test: test)
    }

    /// The sessions any of `predicates` selects (none when `predicates` is empty).
    public static func any(of predicates: [SessionPredicate]) -> SessionPredicate {
        SessionPredicate(needsContext: predicates.contains(where: \.needsContext)) { candidate in
            predicates.contains { $0.test(candidate) }
        }
    }

    /// The sessions whose ids are in `ids`.
    public static func ids(_ ids: some Sequence<SessionID>) -> SessionPredicate {
        let ids = Set(ids)
        return SessionPredicate(needsContext: false) { ids.contains($0.info.session) }
    }

    /// The sessions whose ids begin with `prefix` (apps that key sessions by user: `user-42/`).
    public static func idPrefix(_ prefix: String) -> SessionPredicate {
        SessionPredicate(needsContext: false) { $0.info.session.rawValue.hasPrefix(prefix) }
    }

    /// The sessions whose context holds `value` at `path`, a dot-separated list of object keys
    /// (`userID`, `account.id`).
    public static func context(_ path: String, equals value: JSONValue) -> SessionPredicate {
        let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        return SessionPredicate(needsContext: true) { candidate in
            var current: JSONValue? = candidate.context
            for key in keys { current = current?[key] }
            return current == value
        }
    }
}

import RewindStore

/// The upgrade check of a new machine definition against recorded sessions, as
/// `rewind upgrade-check --json` prints it and the fleet server's `…/upgrade-check` answers it:
/// the totals, then the sessions by kind. Built one session at a time (``add(_:store:)``), it
/// keeps the totals of every session but lists at most ``listLimit`` sessions of each kind, so a
/// check over a whole fleet holds a bounded report.
///
/// Its ``description`` is the totals line:
/// `v2: 11,241 sessions of checkout — 11,190 unchanged, 40 migrated, 11 incompatible; 37 diverge, first at 'login' (30), 'pay' (7)`.
public struct UpgradeCheckReport: Codable, Sendable, Hashable, CustomStringConvertible {
    /// How a session fares, the kind it is listed under (the first that applies, in this order).
    public enum Kind: String, Codable, CodingKeyRepresentable, Sendable, Hashable, CaseIterable {
        /// It cannot resume: states missing or moved.
        case incompatible
        /// It cannot resume: a migration's transform threw.
        case migrationFailed
        /// Its records cannot be re-run at all (a missing or damaged record, a stored definition
        /// that is not there): neither question could be answered.
        case unreadable
        /// It resumes, but re-running its events does not reproduce the recording.
        case diverging
        /// It resumes after a migration, and its events reproduce the recording.
        case migrated
        /// It resumes as it stands, and its events reproduce the recording.
        case unchanged
    }

    /// A state a session cannot resume with (``DefinitionIncompatibility``).
    public struct Problem: Codable, Sendable, Hashable {
        /// The state's id.
        public var state: String
        /// `missing`, `moved`, `changedKind`, `notEntered` or `noActiveChild`.
        public var problem: String
        /// The incompatibility in words (``DefinitionIncompatibility/description``).
        public var description: String

        /// The entry of `incompatibility`.
        public init(_ incompatibility: DefinitionIncompatibility) {
            state = incompatibility.state
            switch incompatibility.problem {
            case .missing: problem = "missing"
            case .moved: problem = "moved"
            case .changedKind: problem = "changedKind"
            case .notEntered: problem = "notEntered"
            case .noActiveChild: problem = "noActiveChild"
            }
            description = incompatibility.description
        }
    }

    /// Where re-running a session's events first departs from the recording (``Divergence``).
    public struct FirstDivergence: Codable, Sendable, Hashable {
        /// The version of the first record not reproduced.
        public var version: UInt64
        /// Its event.
        public var event: String
        /// The recorded configuration after it, when the divergence is about the configuration.
        public var recorded: [String]?
        /// The configuration the new definition computes instead (`nil` when it rejects the event).
        public var computed: [String]?
        /// The divergence in words (``Divergence/description``).
        public var description: String

        /// The entry of `divergence`.
        public init(_ divergence: Divergence) {
            version = divergence.version
            event = divergence.event
            switch divergence.kind {
            case .targetMismatch(let recorded, let computed):
                self.recorded = recorded
                self.computed = computed
            case .redacted(let recorded):
                self.recorded = recorded
            case .navigationMismatch, .rejected, .incompatible:
                break
            }
            description = divergence.description
        }
    }

    /// One session's check.
    public struct Row: Codable, Sendable, Hashable {
        /// The session id.
        public var session: String
        /// The device store it is in (on the fleet server); `nil` for a local store.
        public var store: String?
        /// Its machine.
        public var machine: String
        /// The kind it is listed under.
        public var kind: Kind
        /// Whether it resumes (unchanged or migrated).
        public var resumes: Bool
        /// The migrations that change it when it resumes, in order (migrated sessions).
        public var migrations: [String]?
        /// Old state id → new state id, as those migrations rename them.
        public var renamed: [String: String]?
        /// Each state it cannot resume with (incompatible sessions).
        public var problems: [Problem]?
        /// The first record its events re-run do not reproduce, or `nil`.
        public var divergence: FirstDivergence?
        /// How many records were reproduced (before the divergence, if any).
        public var verifiedRecords: UInt64
        /// The versions of redacted records that cannot be re-checked (not a divergence).
        public var redacted: [UInt64]?
        /// Why the check could not be made (unreadable sessions) or the migration failed.
        public var error: String?

        /// The row of `check`, of a session in device store `store` (`nil`: a local store).
        public init(_ check: SessionUpgradeCheck, store: String? = nil) {
            session = check.session.rawValue
            self.store = store
            machine = check.machine
            resumes = check.resume.resumes
            verifiedRecords = check.verification.verifiedRecords
            divergence = check.verification.divergence.map(FirstDivergence.init)
            let redactedVersions = check.verification.unverifiableRedactedVersions
            redacted = redactedVersions.isEmpty ? nil : redactedVersions
            switch check.resume {
            case .unchanged:
                kind = divergence == nil ? .unchanged : .diverging
            case .migrated(let migrations, let renamed):
                kind = divergence == nil ? .migrated : .diverging
                self.migrations = migrations
                self.renamed = renamed.isEmpty ? nil : renamed
            case .incompatible(let problems):
                kind = .incompatible
                self.problems = problems.map(Problem.init)
            case .migrationFailed(let migration, let reason):
                kind = .migrationFailed
                self.migrations = [migration]
                error = reason
            }
        }

        /// The row of a session whose check could not be made, and why.
        public init(unreadable session: String, store: String? = nil, machine: String, reason: String) {
            self.session = session
            self.store = store
            self.machine = machine
            kind = .unreadable
            resumes = false
            verifiedRecords = 0
            error = reason
        }
    }

    /// How many sessions first diverge at an event.
    public struct EventCount: Codable, Sendable, Hashable {
        /// The event.
        public var event: String
        /// How many sessions first diverge at it.
        public var sessions: Int
    }

    /// What the new definition is called in the report (its file name, or its name).
    public var label: String
    /// The machine whose sessions were checked.
    public var machine: String
    /// The content version of the new definition.
    public var definition: String
    /// How many sessions were checked.
    public var checkedSessions = 0
    /// How many resume as they stand.
    public var unchanged = 0
    /// How many resume after a migration.
    public var migrated = 0
    /// How many cannot resume (states missing or moved).
    public var incompatible = 0
    /// How many cannot resume because a migration's transform threw.
    public var migrationFailed = 0
    /// How many could not be checked at all.
    public var unreadable = 0
    /// How many re-run do not reproduce every recorded version (whatever their resume).
    public var diverging = 0
    /// The events at which sessions first diverge, most sessions first (then by name).
    public var divergingEvents: [EventCount] = []
    /// The sessions listed, in the order checked: at most ``listLimit`` of each kind.
    public var sessions: [Row] = []
    /// How many sessions of each kind are not in ``sessions`` (beyond ``listLimit``); absent when none.
    public var unlisted: [Kind: Int]?
    /// The most sessions of one kind ``sessions`` lists.
    public var listLimit: Int
    /// How many sessions of each kind ``sessions`` lists, kept by `add` so that
    /// adding a session costs the same however long the list is.
    private var listed = ListedCounts()

    /// The encoded properties (``listed`` follows from ``sessions``).
    private enum CodingKeys: String, CodingKey {
        case label, machine, definition, checkedSessions, unchanged, migrated, incompatible, migrationFailed, unreadable
        case diverging, divergingEvents, sessions, unlisted, listLimit
    }

    /// How many rows of each kind a list holds: a cache of ``sessions`` that takes no part in
    /// equality, hashing or coding.
    private struct ListedCounts: Sendable, Hashable {
        /// The rows counted, of every kind.
        var total = 0
        /// The rows counted, by kind.
        var byKind: [Kind: Int] = [:]

        init() {}

        /// The counts of `rows`.
        init(_ rows: [Row]) {
            for row in rows { add(row.kind) }
        }

        mutating func add(_ kind: Kind) {
            total += 1
            byKind[kind, default: 0] += 1
        }

        static func == (_: Self, _: Self) -> Bool { true }
        func hash(into _: inout Hasher) {}
    }

    /// An empty report of the check of `machine`'s sessions against the definition with content
    /// version `definition`, called `label`, listing at most `listLimit` sessions of each kind.
    public init(label: String, machine: String, definition: String, listLimit: Int = .max) {
        self.label = label
        self.machine = machine
        self.definition = definition
        self.listLimit = max(listLimit, 0)
    }

    /// Whether nothing stops the release: every session resumes and reproduces its recording
    /// (divergences count unless `allowingDivergence`), and every session could be checked.
    public func passes(allowingDivergence: Bool = false) -> Bool {
        incompatible == 0 && migrationFailed == 0 && unreadable == 0 && (allowingDivergence || diverging == 0)
    }

    /// Whether nothing stops the release, divergences included (``passes(allowingDivergence:)``).
    public var passes: Bool { passes() }

    /// Counts `check` and lists it (within ``listLimit``).
    public mutating func add(_ check: SessionUpgradeCheck, store: String? = nil) {
        add(Row(check, store: store))
    }

    /// Counts a session whose check could not be made (``Kind/unreadable``) and lists it.
    public mutating func addUnreadable(session: String, store: String? = nil, machine: String, reason: String) {
        add(Row(unreadable: session, store: store, machine: machine, reason: reason))
    }

    /// Counts `row` and lists it (within ``listLimit``).
    public mutating func add(_ row: Row) {
        checkedSessions += 1
        switch row.kind {
        case .incompatible: incompatible += 1
        case .migrationFailed: migrationFailed += 1
        case .unreadable: unreadable += 1
        case .diverging, .migrated, .unchanged:
            if row.migrations == nil { unchanged += 1 } else { migrated += 1 }
        }
        if let divergence = row.divergence {
            diverging += 1
            if let index = divergingEvents.firstIndex(where: { $0.event == divergence.event }) {
                divergingEvents[index].sessions += 1
            } else {
                divergingEvents.append(EventCount(event: divergence.event, sessions: 1))
            }
            divergingEvents.sort { ($0.sessions, $1.event) > ($1.sessions, $0.event) }
        }
        // A decoded report, or one whose list was changed directly: count the list once.
        if listed.total != sessions.count { listed = ListedCounts(sessions) }
        if listed.byKind[row.kind, default: 0] < listLimit {
            sessions.append(row)
            listed.add(row.kind)
        } else {
            var counts = unlisted ?? [:]
            counts[row.kind, default: 0] += 1
            unlisted = counts
        }
    }

    /// The totals line, e.g. `v2: 11,241 sessions of checkout — 11,190 unchanged, 40 migrated,
    /// 11 incompatible; 37 diverge, first at 'login' (30), 'pay' (7)`.
    public var description: String {
        /// `11241` as `11,241`.
        func number(_ value: Int) -> String {
            var digits = Array(String(value.magnitude))
            var index = digits.count - 3
            while index > 0 {
                digits.insert(",", at: index)
                index -= 3
            }
            return (value < 0 ? "-" : "") + String(digits)
        }
        var counts = [
            "\(number(unchanged)) unchanged", "\(number(migrated)) migrated", "\(number(incompatible)) incompatible",
        ]
        if migrationFailed > 0 { counts.append("\(number(migrationFailed)) migration failed") }
        if unreadable > 0 { counts.append("\(number(unreadable)) unreadable") }
        var line =
            "\(label): \(number(checkedSessions)) session\(checkedSessions == 1 ? "" : "s") of \(machine) — "
            + counts.joined(separator: ", ") + "; \(number(diverging)) diverge"
        if !divergingEvents.isEmpty {
            let shown = divergingEvents.prefix(3).map { "'\($0.event)' (\(number($0.sessions)))" }
            line += ", first at " + shown.joined(separator: ", ") + (divergingEvents.count > 3 ? ", …" : "")
        }
        return line
    }
}

extension UpgradeCheckReport {
    /// Whether `error`, thrown checking one session, concerns that session alone (its records
    /// cannot be re-run, a stored definition is missing or damaged): the check lists the session
    /// as unreadable and goes on. Any other error (a closed engine, the store's) ends the check.
    public static func isUnreadableSession(_ error: any Error) -> Bool {
        switch error {
        case EngineError.closed: false
        case is EngineError, is ReplayError: true
        case StoreError.corruptedRecord, StoreError.corruptedEntry: true
        default: false
        }
    }
}

extension UpgradeCheckReport.Row {
    /// What the check says about the session, in words: the states it cannot resume with, the
    /// failed migration, why it could not be checked, its first divergence, or the migrations
    /// that change it (as `rewind upgrade-check` and the viewer's machine page print it).
    public var detail: String {
        let diverges = divergence.map { "diverges at \($0.description)" }
        switch kind {
        case .incompatible:
            return ((problems ?? []).map(\.description) + [diverges].compactMap { $0 }).joined(separator: "; ")
        case .migrationFailed:
            return "migration '\(migrations?.first ?? "")' failed: \(error ?? "")"
        case .unreadable:
            return error ?? "cannot be checked"
        case .diverging:
            let migrated = migrations.map { " (after \($0.map { "'\($0)'" }.joined(separator: ", ")))" } ?? ""
            return (divergence?.description ?? "") + migrated
        case .unchanged:
            return "resumes as it stands"
        case .migrated:
            let renames = (renamed ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) → \($0.value)" }
            return "by " + (migrations ?? []).map { "'\($0)'" }.joined(separator: ", ")
                + (renames.isEmpty ? "" : " (" + renames.joined(separator: ", ") + ")")
        }
    }
}

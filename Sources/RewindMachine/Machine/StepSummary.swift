/// What a send of a ``PreparedEvent`` did, without building a ``Step``: whether it took a
/// precomputed move, changed nothing, or ran the general algorithm (whose step it keeps).
///
/// A summary holds no arrays, so returning it costs nothing; ask the machine that made it for
/// the details: ``Machine/navigation(of:)``, ``Machine/exited(of:)``, ``Machine/entered(of:)``.
public struct StepSummary: Hashable, Sendable {
    enum Outcome: Hashable, Sendable {
        /// An ignored event: nothing changed.
        case unchanged
        /// A precomputed move (its index in the table).
        case moved(Int32)
        /// The general algorithm ran.
        indirect case evaluated(Step)
    }

    let outcome: Outcome
    /// The serial number of the table the move index refers to (`0` for none).
    let table: UInt64

    init(_ outcome: Outcome, table: UInt64 = 0) {
        self.outcome = outcome
        self.table = table
    }

    /// The step the general algorithm computed, when it ran (a dynamic outcome: guards, actions,
    /// history, payloads, see ``Machine/send(_:in:now:)-(PreparedEvent,_,_)``); `nil` when the
    /// outcome was precomputed or the event was ignored.
    public var evaluatedStep: Step? {
        if case .evaluated(let step) = outcome { return step }
        return nil
    }

    /// Whether the outcome came from the precomputed table (a move, or an ignored event) rather
    /// than from the general algorithm.
    public var isPrecomputed: Bool { evaluatedStep == nil }
}

import RewindMachine
import RewindStore

extension ScreenStack {
    /// Applies `record`'s navigation operations as a reader of the log alone rebuilds them (the
    /// navigation projection, `rewind history`): new entries take the data the record's state
    /// data holds for their screen, and an entry a pop uncovers takes the data the step entered
    /// its screen with, if any (``apply(_:enteredData:)``). The stack is the one the session
    /// itself kept (``apply(_:of:to:)``), without running the machine.
    ///
    /// The state data is decoded (with `coder`, the store's) only when an operation needs it.
    ///
    /// - Throws: The coder's error when the record's state data cannot be decoded as a JSON object
    ///   by state id.
    public mutating func apply(_ record: TransitionRecord, coder: any PayloadCoder) throws {
        let operations = record.navigation
        if operations.isEmpty { return }
        guard !record.stateData.isEmpty, operations.contains(where: { $0 != .none }) else {
            apply(operations) { _ in nil }
            return
        }
        let entered = try coder.decode([String: JSONValue].self, from: record.stateData)
        apply(operations) { entered[$0] }
    }
}

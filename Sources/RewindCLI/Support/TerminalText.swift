import Rewind

extension String {
    /// The text as text output shows it: control characters escaped (`\e`, `\n`,
    /// `\u{9B}`: `DisplayText.escaped`), so an id or a value from the log holding an escape
    /// sequence or a newline cannot act on the terminal or break a table. Every text printer of
    /// the tool shows ids, names and values through it; JSON output is escaped by JSON.
    var shown: String { DisplayText.escaped(self) }
}

extension SessionID {
    /// The id as text output shows it (``Swift/String/shown``).
    var shown: String { rawValue.shown }
}

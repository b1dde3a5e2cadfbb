import RewindMachine
@_spi(Internals) import RewindValues

/// What a reader of many record lines keeps from one line to the next: the strings the lines
/// repeat (machine, definition, states, events; interned by the parser) and their lists of
/// states and navigation operations.
///
/// A session's records repeat a few configurations and navigation steps: read anew, every line
/// allocated a `source`, a `target` and a `navigation` array and freed them with the record
/// (about 1,100 instructions of each imported record; callgrind, Benchmarks/HISTORY.md
/// 2026-12-02). A list is kept by its JSON text, as the line has it: a line whose list has the
/// same text reads as the same list, shared by reference (equal texts parse to equal values; a
/// list written another way is only made again). What is handed out is what a fresh read makes:
/// only storage is shared. Its memory is bounded as the parser's strings are.
struct RecordLineMemory {
    /// The strings the lines repeat (``JSONValue/stringMemory()``), moved into each line's parser.
    var strings = JSONValue.stringMemory()
    /// The lists of states (`source`, `target`).
    var stateLists = RecentLists<String>()
    /// The navigation lists.
    var navigationLists = RecentLists<NavigationOperation>()
}

/// Lists read from JSON, kept by their text (see ``RecordLineMemory``).
struct RecentLists<Element> {
    private var keys = UTF8KeyTable(startingOverPast: JSONValue.maximumRememberedStrings)
    /// The lists, by their index in `keys`.
    private var lists: [[Element]] = []
    /// The elements of the list being read: its storage is reused from list to list, and a list
    /// is allocated only when its text is new.
    var scratch: [Element] = []

    /// Empties ``scratch`` for the elements of the next list.
    mutating func beginList() {
        scratch.removeAll(keepingCapacity: true)
    }

    /// The list of ``scratch``'s elements, whose JSON text is `text`: the one made before for
    /// the same text, or a new one, kept.
    mutating func list(ofText text: UnsafeRawBufferPointer) -> [Element] {
        if let index = keys.index(of: text) { return lists[index] }
        let made = Array(scratch)
        // Index 0: the table is new or has just started over, past its bound.
        if keys.insert(bytes: text) == 0 { lists.removeAll(keepingCapacity: true) }
        lists.append(made)
        return made
    }
}

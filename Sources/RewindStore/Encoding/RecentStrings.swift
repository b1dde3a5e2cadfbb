@_spi(Internals) import RewindValues

/// The strings and string lists a run of decoded records repeats, made once and handed out again.
///
/// A session's records name the same machine, definition, states and events over and over.
/// Decoding each record anew makes a `String` or a `[String]` per field (the definition's 64
/// characters and every list on the heap) and frees them again with the record. A walk over many
/// records decodes them through one `RecentStrings` (``RecordView/record(reusing:)``): a field
/// whose bytes are those of a string or list made before is that value again, shared by
/// reference. Strings are interned by their bytes in a `UTF8KeyTable`, lists by their strings as
/// stored (each after its length) in a second one, the lists beside it by index. What it hands
/// out is the value a fresh decode makes: only storage is shared.
///
/// Its memory is bounded: past ``maximumRemembered`` strings or lists, that table starts over (a
/// check of the whole log meets every session's id once).
package struct RecentStrings {
    private let isRemembering: Bool
    private var strings = UTF8KeyTable(startingOverPast: RecentStrings.maximumRemembered)
    private var listKeys = UTF8KeyTable(startingOverPast: RecentStrings.maximumRemembered)
    /// The lists, by their index in `listKeys`.
    private var lists: [[String]] = []

    /// The most strings, and the most lists, remembered before their table starts over.
    package static var maximumRemembered: Int { 4_096 }

    /// A memory of recent strings and lists; `remembering: false` remembers nothing (a single
    /// record's decode, which would only pay for the memory).
    package init(remembering: Bool = true) {
        isRemembering = remembering
    }

    /// The string whose UTF-8 is `bytes` (invalid UTF-8 repaired, as `String(decoding:as:)`).
    /// Always inlined: the record's decoding calls it for each of a record's strings.
    @inline(__always)
    package mutating func string(_ bytes: UnsafeRawBufferPointer) -> String {
        guard isRemembering else { return String(decoding: bytes, as: UTF8.self) }
        return strings.string(bytes)
    }

    /// The strings of `list`.
    package mutating func list(_ list: RecordView.StringList) -> [String] {
        guard !list.isEmpty else { return [] }
        guard isRemembering else { return list.map { String(decoding: $0, as: UTF8.self) } }
        let bytes = list.encodedBytes
        if let index = listKeys.index(of: bytes) { return lists[index] }
        var made: [String] = []
        made.reserveCapacity(list.count)
        // Through `string`: a state of one list is often another's.
        for element in list { made.append(string(element)) }
        // Index 0: the table is new or has just started over, past its bound.
        if listKeys.insert(bytes: bytes) == 0 { lists.removeAll(keepingCapacity: true) }
        lists.append(made)
        return made
    }
}

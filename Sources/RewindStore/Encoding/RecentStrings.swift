import RewindValues

/// The strings and string lists a run of decoded records repeats, made once and handed out again.
///
/// A session's records name the same machine, definition, states and events over and over.
/// Decoding each record anew makes a `String` or a `[String]` per field (the definition's 64
/// characters and every list on the heap) and frees them again with the record. A walk over many
/// records decodes them through one `RecentStrings` (``RecordView/record(reusing:)``): a field
/// whose bytes are those of a string or list made before is that value again, shared by
/// reference. Strings and lists are remembered by their bytes (`RecentByBytes`: a list by its
/// strings as stored, each after its length). What it hands out is the value a fresh decode
/// makes: only storage is shared.
package struct RecentStrings {
    private var strings: RecentByBytes<String>
    private var lists: RecentByBytes<[String]>

    /// A memory of recent strings and lists; `remembering: false` remembers nothing (a single
    /// record's decode, which would only pay for the memory).
    package init(remembering: Bool = true) {
        strings = RecentByBytes(remembering: remembering)
        lists = RecentByBytes(remembering: remembering)
    }

    /// The string whose UTF-8 is `bytes` (checked UTF-8).
    package mutating func string(_ bytes: UnsafeRawBufferPointer) -> String {
        strings.value(for: bytes) { String(decoding: bytes, as: UTF8.self) }
    }

    /// The strings of `list`.
    package mutating func list(_ list: RecordView.StringList) -> [String] {
        guard !list.isEmpty else { return [] }
        let bytes = list.encodedBytes
        if let known = lists.remembered(for: bytes) { return known }
        var made: [String] = []
        made.reserveCapacity(list.count)
        // Through `string`: a state of one list is often another's.
        for element in list { made.append(string(element)) }
        lists.remember(made, for: bytes)
        return made
    }
}

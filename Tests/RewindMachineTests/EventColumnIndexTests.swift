import Testing

@testable import RewindMachine

/// The prepared table's event-name lookup finds every name at its own column, among names that
/// collide in its open-addressing table, and finds nothing for any other name.
@Suite struct EventColumnIndexTests {
    @Test(arguments: [0, 1, 3, 4, 5, 300])
    func everyNameIsFoundAtItsColumnAndNoOtherNameIsFound(count: Int) {
        // Names alike in length and bytes, empty and non-ASCII ones, a name longer than a small
        // string: the probe chains meet.
        var names = (0..<count).map { "e\($0)" }
        if count > 3 { names += ["", "日本", "\u{0}unmatched", String(repeating: "long-name-", count: 4)] }
        let index = EventColumnIndex(names)
        for (column, name) in names.enumerated() {
            #expect(index.column(of: name) == Int32(column), "\(name)")
        }
        for other in ["e\(count)", "E0", "e0 ", "日", "long-name-", "\u{0}"] where !names.contains(other) {
            #expect(index.column(of: other) == nil, "\(other)")
        }
    }
}

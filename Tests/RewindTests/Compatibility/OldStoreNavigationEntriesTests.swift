import Foundation
import Rewind
import RewindTestSupport
import Testing

/// The navigation entries of a store and an archive written before entries had data
/// (`Tests/Fixtures/store-e1a963d`, session `kanji-nav`: Detail(日) → List(日本) → Detail(本) →
/// All → Detail(emoji…), snapshots every 2 versions in the first format `{"screens": […]}`).
///
/// The fixture comes with main's commit 690ac2b (`OldFormatFixtureTests`); on a branch without it
/// these tests are skipped, saying so.
@Suite(.enabled(if: OldStoreFixture.isPresent, "Tests/Fixtures/store-e1a963d is not in this checkout"))
struct OldStoreNavigationEntriesTests {
    static var fixture: URL { OldStoreFixture.url }

    static let day: JSONValue = ["character": "日", "meanings": ["day", "sun"]]
    static let book: JSONValue = ["character": "本", "meanings": ["book", "origin"]]
    static let japan: JSONValue = ["word": "日本"]
    static let emoji: JSONValue = ["character": "👩‍👩‍👧 😀 \"q\" \\ /", "meanings": []]

    static func entry(_ screen: String, _ data: JSONValue = .null) -> NavigationEntry {
        NavigationEntry(screen: screen, data: data)
    }

    /// An old snapshot holds no data for the entries below its top: such a snapshot is passed
    /// over for the records before it, so every version (and the resumed session) has every
    /// entry's data, as the log says.
    @Test func theOldStoreResumesAndReplaysWithEveryEntrysData() throws {
        // A copy: opening a store may write to it.
        let directory = try TemporaryDirectory(prefix: "rewind-old-store")
        defer { directory.remove() }
        try FileManager.default.removeItem(atPath: directory.path)
        try FileManager.default.copyItem(
            atPath: Self.fixture.appendingPathComponent("store").path, toPath: directory.path)
        let engine = try Engine(directory: directory.path, configuration: EngineConfiguration(snapshotInterval: 2))
        defer { engine.close() }
        try engine.register(try ExampleMachines.Kanji.machine())
        let session = try engine.session("kanji-nav")
        #expect(session.navigationStack.entries == [Self.entry("all"), Self.entry("detail", Self.emoji)])

        var cursor = try engine.replayCursor(for: "kanji-nav")
        let expected: [[NavigationEntry]] = [
            [Self.entry("all")],  // no snapshot: from the start
            // Old snapshots 2 and 4 have entries below their tops: replayed from the records.
            [Self.entry("all"), Self.entry("detail", Self.day)],
            [Self.entry("all"), Self.entry("detail", Self.day), Self.entry("list", Self.japan)],
            [
                Self.entry("all"), Self.entry("detail", Self.day), Self.entry("list", Self.japan),
                Self.entry("detail", Self.book),
            ],
            [Self.entry("all")],
            [Self.entry("all"), Self.entry("detail", Self.emoji)],
        ]
        for (index, entries) in expected.enumerated() {
            #expect(try cursor.seek(to: UInt64(index + 1)).navigation.entries == entries, "version \(index + 1)")
        }
    }

    /// An old archive holds every record: imported, every version's entries have all their data.
    @Test func theOldArchiveImportsWithEveryEntrysData() async throws {
        let fixture = try EngineFixture(snapshotInterval: 2)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try ExampleMachines.Kanji.machine()])
        defer { engine.close() }
        try await engine.importSession(from: Self.fixture.appendingPathComponent("kanji-nav.rewind"))
        var cursor = try engine.replayCursor(for: "kanji-nav")
        let atFour = try cursor.seek(to: 4)
        #expect(
            atFour.navigation.entries == [
                Self.entry("all"), Self.entry("detail", Self.day), Self.entry("list", Self.japan),
                Self.entry("detail", Self.book),
            ])
        #expect(
            try engine.session("kanji-nav").navigationStack.entries == [
                Self.entry("all"), Self.entry("detail", Self.emoji),
            ])
    }
}

/// Where the fixture is.
enum OldStoreFixture {
    /// `Tests/Fixtures/store-e1a963d`.
    static let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/store-e1a963d")
    /// Whether this checkout has it.
    static var isPresent: Bool {
        FileManager.default.fileExists(atPath: url.appendingPathComponent("store/data.mdb").path)
    }
}

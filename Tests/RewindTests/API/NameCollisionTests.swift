import Rewind
import RewindTestSupport
import SwiftUIStandIn
import Testing

/// An app file imports SwiftUI (here its stand-ins) and Rewind and names SwiftUI's types without
/// qualification: `import Rewind` exports no `Environment`, `Transition`, `Database`, `Cursor`,
/// `State`, `Binding`, `Transaction`, `Namespace`, `Animation` or `NavigationStack` of its own
/// (the recorded stack is ``ScreenStack``). This file compiling
/// is the test; the assertions check that the two sets of names work side by side.
struct NameCollisionTests {
    typealias Onboarding = ExampleMachines.Onboarding

    /// A view-like type using the stand-ins the way SwiftUI views use SwiftUI's.
    struct ScreenView {
        @Environment var title: String
        @State var taps = 0
        let slide: any Transition
        let database: Database
    }

    struct Slide: Transition {
        var name: String
    }

    struct Countdown: Cursor {
        var left: Int
        mutating func next() -> Int? {
            guard left > 0 else { return nil }
            left -= 1
            return left
        }
    }

    @Test func swiftUINamesAndRewindNamesLiveSideBySide() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        try await session.send(Onboarding.Event.launch)

        let view = ScreenView(
            title: session.configuration.joined(), slide: Slide(name: "push"), database: Database(name: "app"))
        var cursor: any Cursor = Countdown(left: 2)
        let transaction = Transaction()
        _ = (transaction, Namespace(), Animation(), Binding { view.taps })
        #expect(view.title == "greeting")
        #expect(view.slide.name == "push")
        #expect(view.database.name == "app")
        #expect(cursor.next() == 1)
        // SwiftUI's stack, unqualified, over the path the session's recorded stack gives it.
        let recorded: ScreenStack = session.navigationStack
        let stack = NavigationStack(path: Binding { Array(recorded.screens.dropFirst()) }) { "root" }
        #expect(stack.path.get() == [])
        #expect(stack.root == "root")
        #expect(recorded.screens == ["greeting"])
        // Rewind's own names for what it used to export under these: the store's transition to
        // append and the LMDB types stay reachable under names of their own.
        let draft = TransitionDraft(
            machine: "onboarding", definition: "d", event: "e", source: ["greeting"], target: ["login"])
        #expect(draft.target == ["login"])
        #expect(try engine.history(of: session.id).map(\.event) == ["rewind.start", "launch"])
    }
}

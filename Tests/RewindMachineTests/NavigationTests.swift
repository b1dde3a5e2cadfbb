import RewindExamples
import Testing

@testable import RewindMachine

struct NavigationTests {
    @Test func stackAppliesEveryOperation() {
        var stack = ScreenStack()
        stack.apply([.setRoot("a"), .push("b"), .push("c"), .push("b"), .push("d")])
        #expect(stack.screens == ["a", "b", "c", "b", "d"])
        stack.apply(.popTo("c"))
        #expect(stack.screens == ["a", "b", "c"])
        stack.apply(.replace("x"))
        #expect(stack.screens == ["a", "b", "x"])
        stack.apply(.pop)
        #expect(stack.screens == ["a", "b"])
        stack.apply(.popToRoot)
        #expect(stack.screens == ["a"])
        stack.apply(.pop)
        #expect(stack.screens == ["a"])
        stack.apply(.none)
        stack.apply(.popTo("missing"))
        #expect(stack.screens == ["a"])
    }

    @Test func kanjiLogRebuildsTheNavigationStack() throws {
        let machine = try ExampleMachines.Kanji.machine()
        var stack = ScreenStack()
        var step = try machine.start()
        #expect(step.navigation == [.setRoot("all")])
        stack.apply(step.navigation)
        for (target, expected) in [
            ("detail", ["all", "detail"]),
            ("list", ["all", "detail", "list"]),
            ("detail", ["all", "detail", "list", "detail"]),
            ("all", ["all"]),
        ] {
            step = try machine.enter(target, in: step.state)
            stack.apply(step.navigation)
            #expect(stack.screens == expected)
        }
        #expect(step.navigation == [.popToRoot])
    }

    @Test func transitionDeclarationOverridesTheTargetsDeclaration() throws {
        let machine = try ExampleMachines.Browser.machine()
        var stack = ScreenStack()
        var step = try machine.start()
        stack.apply(step.navigation)
        #expect(stack.screens == ["feedList"])
        step = try machine.send("open", in: step.state)
        #expect(step.navigation == [.push("post")])
        step = try machine.send("showComments", in: step.state)
        step = try machine.send("back", in: step.state)
        #expect(step.navigation == [.pop])
        stack.apply([.push("post"), .push("postComments"), .pop])
        #expect(stack.screens == ["feedList", "post"])
    }

    @Test func routesTableNavigationReplacesTheRoot() throws {
        let machine = try ExampleMachines.Onboarding.machine()
        var state = try machine.start().state
        var operations: [NavigationOperation] = []
        for event in ["launch", "start", "loggedIn"] {
            let step = try machine.send(event, in: state)
            operations += step.navigation
            state = step.state
        }
        #expect(operations == [.setRoot("greeting"), .push("login"), .setRoot("home")])
        var stack = ScreenStack()
        stack.apply(operations)
        #expect(stack.screens == ["home"])
    }

    @Test func namedScreenOverridesTheStateID() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("a") { On("go", to: "b", navigation: .replace(screen: "B-screen")) }
                StateNode("b", navigation: .push())
            })
        #expect(try machine.send("go", in: try machine.start().state).navigation == [.replace("B-screen")])
    }
}

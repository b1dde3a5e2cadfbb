import Testing

@testable import RewindMachine

@Suite("Guard expressions in SCXML")
struct GuardExpressionTests {
    @Test(arguments: [
        ("In('a')", GuardDefinition.inState("a")),
        ("In(\"a.b\")", .inState("a.b")),
        (" ! In ( 'x' ) ", .not(.inState("x"))),
    ])
    func parsesInConditions(text: String, expected: GuardDefinition) {
        #expect(GuardExpression.parseCondition(text) == expected)
    }

    @Test(arguments: ["In('a') && In('b')", "!!In('a')", "In('')", "In('a\")", "in('a')", "x", "In('a' )x"])
    func rejectsOtherConditions(text: String) {
        #expect(GuardExpression.parseCondition(text) == nil)
    }

    @Test func writesConditionsOnlyForInAndNotIn() {
        #expect(GuardExpression.condition(for: .inState("a")) == "In('a')")
        #expect(GuardExpression.condition(for: .not(.inState("it's"))) == "!In(\"it's\")")
        #expect(GuardExpression.condition(for: .inState(#"both'"quotes"#)) == nil)
        #expect(GuardExpression.condition(for: .named("x")) == nil)
        #expect(GuardExpression.condition(for: .not(.not(.inState("a")))) == nil)
    }

    @Test func roundTripsRewindGuards() {
        let guards: [GuardDefinition] = [
            .named("valid"), .inState("a"), .not(.named("x")), .all([]), .any([]),
            .all([.named("a"), .any([.inState("b"), .not(.named(#"q'uote\slash"#))])]),
        ]
        for guardDefinition in guards {
            let text = GuardExpression.expression(for: guardDefinition)
            #expect(GuardExpression.parseExpression(text) == guardDefinition, "\(text)")
        }
        #expect(
            GuardExpression.expression(for: .all([.named("a"), .not(.inState("b"))]))
                == "all(named('a'), not(inState('b')))")
    }

    @Test func acceptsInAsAnAliasAndSpaces() {
        #expect(
            GuardExpression.parseExpression(" any ( In('a') , named( 'b' ) ) ") == .any([.inState("a"), .named("b")]))
    }

    @Test(arguments: ["", "named(x)", "named('x'", "all(named('a'),)", "nope('a')", "named('a') extra", "not()"])
    func rejectsMalformedRewindGuards(text: String) {
        #expect(GuardExpression.parseExpression(text) == nil)
    }

    @Test func boundsTheNestingOfRewindGuards() {
        let depth = GuardExpression.maximumDepth + 1
        let deep = String(repeating: "not(", count: depth) + "named('x')" + String(repeating: ")", count: depth)
        #expect(GuardExpression.parseExpression(deep) == nil)
        let shallow = String(repeating: "not(", count: 10) + "named('x')" + String(repeating: ")", count: 10)
        #expect(GuardExpression.parseExpression(shallow) != nil)
    }
}

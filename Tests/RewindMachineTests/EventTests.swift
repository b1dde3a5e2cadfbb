import Testing

@testable import RewindMachine

struct EventTests {
    @Test(arguments: [
        ("foo", "foo", true), ("foo", "foo.bar", true), ("foo", "foobar", false),
        ("foo.bar", "foo", false), ("foo.*", "foo.bar.baz", true), ("*", "anything", true),
        ("foo.", "foo.x", true), ("a.b", "a.b", true), ("a.b", "a.bc", false),
    ])
    func descriptorMatchingFollowsSCXMLTokenPrefixes(descriptor: String, name: String, expected: Bool) {
        #expect(Event(name).matches(descriptor) == expected)
    }

    enum Kind: String { case tapped }

    @Test func typedNamesBecomeStrings() throws {
        #expect(Event(Kind.tapped).name == "tapped")
        let event = try Event("tapped", encoding: ["x": 1])
        #expect(event.payload["x"] == .number(1))
    }
}

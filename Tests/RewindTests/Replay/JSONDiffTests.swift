import Rewind
import Testing

@Suite("Structural JSON diff")
struct JSONDiffTests {
    @Test func equalValuesHaveNoDifferences() {
        let value: JSONValue = ["a": ["b": [1, 2, ["c": true]]], "d": .null]
        #expect(value.differences(to: value).isEmpty)
    }

    @Test func nestedChangesAreReportedAtTheirPaths() {
        let old: JSONValue = ["a": ["b": [1, 2, 3]], "gone": "x", "same": 1]
        let new: JSONValue = ["a": ["b": [1, 2, 4, 5]], "new": ["k": .null], "same": 1]
        let changes = old.differences(to: new)
        #expect(
            changes.map(\.description) == [
                "~ a.b[2]: 3 → 4",
                "+ a.b[3]: 5",
                "- gone: \"x\"",
                "+ new: {\"k\":null}",
            ])
        #expect(changes[0].path == JSONPath([.key("a"), .key("b"), .index(2)]))
        #expect(changes[0].kind == .changed(from: 3, to: 4))
    }

    @Test func typeChangesAndShorterArraysAndRootChanges() {
        #expect(JSONValue.array([1, 2, 3]).differences(to: [1]).map(\.description) == ["- [1]: 2", "- [2]: 3"])
        #expect(
            JSONValue.object(["a": [1]]).differences(to: ["a": ["x": 1]]).map(\.description)
                == ["~ a: [1] → {\"x\":1}"])
        #expect(JSONValue.null.differences(to: "text").map(\.description) == ["~ $: null → \"text\""])
    }

    @Test func keysThatAreNotIdentifiersAreQuoted() {
        let changes = JSONValue.object(["a b": 1, "2x": 1]).differences(to: ["a b": 2, "2x": 1])
        #expect(changes.map(\.path.description) == [#"["a b"]"#])
        #expect(JSONPath([.key("ok_key-1"), .key("x.y"), .index(0)]).description == #"ok_key-1["x.y"][0]"#)
    }
}

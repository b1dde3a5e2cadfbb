import Foundation
import Testing

@testable import RewindMachine

@Suite("JSON interchange document")
struct JSONDocumentTests {
    private func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func decodingError(_ json: String) -> JSONDocumentError? {
        do {
            _ = try MachineDefinition(jsonDocument: Data(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test func roundTripPreservesEveryField() throws {
        let definition = InterchangeFixtures.everyField
        let decoded = try MachineDefinition(jsonDocument: definition.jsonDocument())
        #expect(decoded == definition)
    }

    @Test func roundTripPreservesEveryConformanceCase() throws {
        for url in ConformanceCases.documents() {
            let definition = try MachineDefinition(scxmlFileAt: url)
            #expect(
                try MachineDefinition(jsonDocument: definition.jsonDocument()) == definition, "\(url.lastPathComponent)"
            )
        }
    }

    @Test func writesTheEnvelope() throws {
        let document = try object(InterchangeFixtures.everyField.jsonDocument())
        #expect(document["format"] as? String == "rewind.machine")
        #expect(document["formatVersion"] as? Int == 1)
        let machine = try #require(document["machine"] as? [String: Any])
        #expect(machine["name"] as? String == "checkout")
    }

    @Test func encodesTheSameDefinitionToTheSameBytes() {
        let first = InterchangeFixtures.everyField.jsonDocument()
        var rebuilt = InterchangeFixtures.everyField
        rebuilt.states = rebuilt.states.map { $0 }
        #expect(rebuilt.jsonDocument() == first)
        #expect(InterchangeFixtures.everyField.jsonDocument() == first)
    }

    @Test func matchesTheGoldenEncoding() throws {
        let definition = MachineDefinition(
            name: "door",
            initial: ["closed"],
            states: [
                StateDefinition(
                    id: "closed",
                    transitions: [
                        TransitionDefinition(events: ["open"], targets: ["open"], condition: .inState("closed"))
                    ]
                ),
                StateDefinition(id: "open", kind: .final, onEntry: [.send(event: "close", delay: .milliseconds(500))]),
            ]
        )
        let expected = """
            {
              "format" : "rewind.machine",
              "formatVersion" : 1,
              "machine" : {
                "initial" : [
                  "closed"
                ],
                "name" : "door",
                "states" : [
                  {
                    "id" : "closed",
                    "transitions" : [
                      {
                        "condition" : {
                          "inState" : "closed"
                        },
                        "events" : [
                          "open"
                        ],
                        "targets" : [
                          "open"
                        ]
                      }
                    ]
                  },
                  {
                    "id" : "open",
                    "kind" : "final",
                    "onEntry" : [
                      {
                        "send" : {
                          "delayMilliseconds" : 500,
                          "event" : "close"
                        }
                      }
                    ]
                  }
                ]
              }
            }
            """
        #expect(String(decoding: definition.jsonDocument(), as: UTF8.self) == expected)
    }

    @Test func omitsDefaultValues() throws {
        let definition = MachineDefinition(
            name: "m", states: [StateDefinition(id: "a", transitions: [TransitionDefinition()])])
        let machine = try #require(try object(definition.jsonDocument())["machine"] as? [String: Any])
        #expect(Set(machine.keys) == ["name", "states"])
        let state = try #require((machine["states"] as? [[String: Any]])?.first)
        #expect(Set(state.keys) == ["id", "transitions"])
        let transition = try #require((state["transitions"] as? [[String: Any]])?.first)
        #expect(transition.isEmpty)
    }

    @Test func keepsAnEmptyValidNextStatesApartFromNone() throws {
        let none = MachineDefinition(name: "m", states: [StateDefinition(id: "a")])
        let empty = MachineDefinition(name: "m", states: [StateDefinition(id: "a", validNextStates: [])])
        #expect(none.jsonDocument() != empty.jsonDocument())
        #expect(try MachineDefinition(jsonDocument: empty.jsonDocument()) == empty)
    }

    @Test func writesEnumsAsTaggedObjects() throws {
        let definition = MachineDefinition(
            name: "m",
            states: [
                StateDefinition(
                    id: "a",
                    transitions: [
                        TransitionDefinition(condition: .not(.named("g")), actions: [.custom("x")], navigation: .pop)
                    ]
                )
            ]
        )
        let text = String(decoding: definition.jsonDocument(), as: UTF8.self)
        #expect(!text.contains("_0"))
        let machine = try #require(try object(definition.jsonDocument())["machine"] as? [String: Any])
        let transition = try #require(
            ((machine["states"] as? [[String: Any]])?.first?["transitions"] as? [[String: Any]])?.first)
        let condition = try #require(transition["condition"] as? [String: Any])
        #expect((condition["not"] as? [String: String]) == ["named": "g"])
        #expect((transition["actions"] as? [[String: [String: String]]]) == [["custom": ["name": "x"]]])
        #expect((transition["navigation"] as? [String: [String: String]]) == ["pop": [:]])
    }

    @Test func rejectsAnUnknownFormatVersion() {
        let error = decodingError(#"{"format": "rewind.machine", "formatVersion": 2, "machine": {"whatever": true}}"#)
        #expect(error == .unsupportedFormatVersion(2, supported: 1))
    }

    @Test func rejectsAnotherFormat() {
        #expect(decodingError(#"{"format": "other", "formatVersion": 1}"#) == .notAMachineDocument(found: "other"))
        #expect(decodingError(#"{"formatVersion": 1}"#) == .notAMachineDocument(found: nil))
    }

    @Test func reportsTheCodingPathOfAMalformedValue() throws {
        let json = """
            {"format": "rewind.machine", "formatVersion": 1, "machine": {"name": "m", "states": [
              {"id": "a"},
              {"id": "b", "transitions": [{"condition": {"named": "x", "inState": "y"}}]}
            ]}}
            """
        let error = try #require(decodingError(json))
        guard case .malformed(let path, _) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(path == "machine.states[1].transitions[0].condition")
        #expect(error.description.contains(path))
    }

    @Test func rejectsUnknownKeys() throws {
        let json =
            #"{"format": "rewind.machine", "formatVersion": 1, "machine": {"name": "m", "states": [{"id": "a", "colour": 1}]}}"#
        let error = try #require(decodingError(json))
        guard case .malformed(let path, let reason) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(path == "machine.states[0].colour")
        #expect(reason.contains("colour"))
    }

    @Test func rejectsMissingKeysAndWrongTypes() throws {
        let missing = try #require(
            decodingError(#"{"format": "rewind.machine", "formatVersion": 1, "machine": {"states": []}}"#))
        #expect(missing == .malformed(path: "machine.name", reason: "missing key 'name'"))
        let wrongType = try #require(
            decodingError(#"{"format": "rewind.machine", "formatVersion": 1, "machine": {"name": 3, "states": []}}"#))
        guard case .malformed("machine.name", _) = wrongType else {
            Issue.record("unexpected \(wrongType)")
            return
        }
    }

    @Test func rejectsBytesThatAreNotJSON() throws {
        let error = try #require(decodingError("{not json"))
        guard case .malformed = error else {
            Issue.record("unexpected \(error)")
            return
        }
    }

    @Test func contentVersionIsTheSHA256OfTheDocument() {
        let definition = InterchangeFixtures.everyField
        #expect(definition.contentVersion == SHA256.hexDigest(of: definition.jsonDocument()))
        #expect(definition.contentVersion.count == 64)
        #expect(definition.contentVersion.allSatisfy { $0.isHexDigit && !$0.isUppercase })
    }

    @Test func contentVersionChangesWithAnyField() {
        let base = InterchangeFixtures.everyField
        var renamed = base
        renamed.name = "checkout2"
        var retargeted = base
        retargeted.states[2].children[1].onEntry = []
        var navigated = base
        navigated.states[0].navigation = .push(screen: nil)
        let versions = [base, renamed, retargeted, navigated].map(\.contentVersion)
        #expect(Set(versions).count == versions.count)
        #expect(base.contentVersion == InterchangeFixtures.everyField.contentVersion)
    }
}

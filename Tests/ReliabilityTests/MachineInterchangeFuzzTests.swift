import Foundation
import Rewind
import RewindTestSupport
import Testing

/// Promise 5 for machine definitions: malformed SCXML and machine JSON get a typed error (both
/// importers throw typed errors, so what is tested is that they never crash or hang, and that
/// whatever they accept is a definition that round-trips and compiles or is refused).
struct MachineInterchangeFuzzTests {
    static let examples: [MachineDefinition] = [
        ExampleMachines.Onboarding.definition, ExampleMachines.Map.definition, ExampleMachines.Kanji.definition,
        ExampleMachines.StateKit.definition, ExampleMachines.LoadingView.definition,
        ExampleMachines.Browser.definition, ExampleMachines.Upload.definition,
    ]

    /// An accepted definition must survive the JSON interchange unchanged, and compiling it may
    /// fail only with an error (never a trap).
    static func checkAccepted(_ definition: MachineDefinition, input: Int) {
        do {
            let again = try MachineDefinition(jsonDocument: definition.jsonDocument())
            #expect(again.contentVersion == definition.contentVersion, "input \(input): the JSON round trip changed it")
        } catch {
            Issue.record("input \(input): an accepted definition's own JSON document does not decode: \(error)")
        }
        _ = try? Machine(definition)
    }

    // The limit catches hangs; it is generous for sanitizer builds (about 10x slower).
    @Test(.hangGuard)
    func mutatedSCXMLIsImportedOrRefusedWithATypedErrorNeverACrash() async {
        let seeds = Self.examples.map { Array($0.scxml().utf8) }
        var mutator = Mutator(seed: 0x5C8_3101)
        var tokens = SeededRandom(seed: 0x5C8_3102)
        let snippets = [
            "<state id=\"x\">", "</state>", "<parallel>", "<final id=\"f\"/>",
            "<transition event=\"e\" target=\"nowhere\"/>",
            "<history type=\"deep\"/>", "<initial/>", "<!DOCTYPE a [<!ENTITY b \"c\">]>", "&amp;", "&#0;", "<![CDATA[",
            "]]>",
            "<datamodel><data id=\"d\" expr=\"1/0\"/></datamodel>", "cond=\"_event.data.x &gt; 1\"",
            "<?xml version=\"1.0\"?>",
        ]
        var outcomes = (accepted: 0, refused: 0)
        for iteration in 0..<3_000 {
            // CPU-bound: let the other tests (time-limited, sharing the cooperative pool) run.
            if iteration % 50 == 0 { await Task.yield() }
            var bytes = seeds[iteration % seeds.count]
            if iteration % 3 == 0, !bytes.isEmpty {
                // Structural: splice an element or entity into a random place.
                let at = Int.random(in: 0...bytes.count, using: &tokens)
                bytes.insert(contentsOf: Array((snippets.randomElement(using: &tokens) ?? "").utf8), at: at)
            } else {
                bytes = mutator.mutate(bytes)
            }
            do {
                let definition = try MachineDefinition(scxml: Data(bytes))
                outcomes.accepted += 1
                Self.checkAccepted(definition, input: iteration)
            } catch {
                outcomes.refused += 1
                #expect(!error.description.isEmpty)
            }
        }
        print("SCXML importer: \(outcomes.accepted) accepted, \(outcomes.refused) refused")
        #expect(outcomes.refused > 0)
    }

    // The limit catches hangs; it is generous for sanitizer builds (about 10x slower).
    @Test(.hangGuard)
    func mutatedMachineJSONIsDecodedOrRefusedWithATypedErrorNeverACrash() async throws {
        let seeds = Self.examples.map { Array($0.jsonDocument()) }
        var mutator = Mutator(seed: 0x150_0001)
        var structure = JSONMutator(seed: 0x150_0002)
        var outcomes = (accepted: 0, refused: 0)
        for iteration in 0..<3_000 {
            // CPU-bound: let the other tests (time-limited, sharing the cooperative pool) run.
            if iteration % 50 == 0 { await Task.yield() }
            let seed = seeds[iteration % seeds.count]
            let bytes = iteration % 2 == 0 ? mutator.mutate(seed) : try structure.mutate(seed)
            do {
                let definition = try MachineDefinition(jsonDocument: Data(bytes))
                outcomes.accepted += 1
                Self.checkAccepted(definition, input: iteration)
            } catch {
                outcomes.refused += 1
                #expect(!error.description.isEmpty)
            }
        }
        print("machine JSON decoder: \(outcomes.accepted) accepted, \(outcomes.refused) refused")
        #expect(outcomes.refused > 0)
    }

    /// Found by the libFuzzer harness: Foundation's `XMLParser` read a null pointer for a
    /// processing instruction without data and crashed the process.
    @Test func processingInstructionsAreRefusedNotCrashingTheParser() throws {
        for document in [
            "<?xMb?>\n", "<?xml version=\"1.0\"?><?target?><scxml/>", "<scxml><?a b?></scxml>",
            " <?xml version=\"1.0\"?><scxml/>",
        ] {
            #expect(throws: SCXMLImportError.self, "\(document)") { try MachineDefinition(scxml: Data(document.utf8)) }
            do {
                _ = try MachineDefinition(scxml: Data(document.utf8))
            } catch {
                #expect(error.reason == .processingInstruction, "\(document)")
            }
        }
        // The XML declaration is not one of them.
        let exported = ExampleMachines.Onboarding.definition.scxml()
        #expect(exported.hasPrefix("<?xml "))
        #expect(
            try MachineDefinition(scxml: Data(exported.utf8)).contentVersion
                == ExampleMachines.Onboarding.definition.contentVersion)
    }

    @Test func absurdlyNestedDocumentsAreRefusedNotOverflowingTheStack() {
        let depth = 100_000
        let scxml =
            "<scxml xmlns=\"http://www.w3.org/2005/07/scxml\" version=\"1.0\">"
            + String(repeating: "<state>", count: depth) + String(repeating: "</state>", count: depth) + "</scxml>"
        #expect(throws: SCXMLImportError.self) { try MachineDefinition(scxml: Data(scxml.utf8)) }
        let json = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(throws: JSONDocumentError.self) { try MachineDefinition(jsonDocument: Data(json.utf8)) }
        let states =
            "{\"format\":\"rewind.machine\",\"formatVersion\":1,\"name\":\"m\",\"root\":"
            + String(repeating: "{\"id\":\"s\",\"children\":[", count: depth / 10)
            + String(repeating: "]}", count: depth / 10) + "}"
        #expect(throws: JSONDocumentError.self) { try MachineDefinition(jsonDocument: Data(states.utf8)) }
    }
}

/// Seeded structural mutations of JSON documents: a random value anywhere in the tree replaced by
/// an absurd one (huge numbers, long strings, deep nesting, wrong types), or an object key removed.
struct JSONMutator {
    var random: SeededRandom

    init(seed: UInt64) {
        random = SeededRandom(seed: seed)
    }

    mutating func replacement() -> Any {
        switch Int.random(in: 0..<12, using: &random) {
        case 0: return NSNull()
        case 1: return -1
        case 2: return 1e308
        case 3: return Int64.max
        case 4: return ""
        case 5: return String(repeating: "x", count: 70_000)
        case 6: return [Any]()
        case 7: return [String: Any]()
        case 8: return true
        case 9: return (0..<2_000).map { "s\($0)" }
        case 10:
            var value: Any = 1
            for _ in 0..<400 { value = [value] }
            return value
        default: return "\u{0}é\u{FFFF}"
        }
    }

    /// `document` with one value somewhere in it replaced or one key removed.
    mutating func mutate(_ document: [UInt8]) throws -> [UInt8] {
        let tree = try JSONSerialization.jsonObject(with: Data(document), options: [.fragmentsAllowed])
        let mutated = mutate(tree, depth: 0)
        return Array(try JSONSerialization.data(withJSONObject: mutated, options: [.sortedKeys, .fragmentsAllowed]))
    }

    private mutating func mutate(_ value: Any, depth: Int) -> Any {
        // Descend with some probability, else mutate here.
        if let object = value as? [String: Any], !object.isEmpty, random.chance(0.8) {
            var object = object
            let key = object.keys.sorted()[Int.random(in: 0..<object.count, using: &random)]
            if random.chance(0.15) {
                object.removeValue(forKey: key)
            } else if let child = object[key] {
                object[key] = mutate(child, depth: depth + 1)
            }
            return object
        }
        if let array = value as? [Any], !array.isEmpty, random.chance(0.8) {
            var array = array
            let index = Int.random(in: 0..<array.count, using: &random)
            if random.chance(0.1) {
                array.append(array[index])
            } else {
                array[index] = mutate(array[index], depth: depth + 1)
            }
            return array
        }
        return replacement()
    }
}

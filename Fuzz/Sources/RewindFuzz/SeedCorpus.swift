import Foundation
import Rewind
import RewindExamples
@_spi(Internals) import RewindStore

/// Valid inputs for every ``FuzzTarget`` (each prefixed with its target byte), written to the
/// directory named by `REWIND_FUZZ_SEEDS` before fuzzing starts, so that libFuzzer mutates real
/// records, documents and archives instead of discovering their formats from nothing.
enum SeedCorpus {
    static let examples: [MachineDefinition] = [
        ExampleMachines.Onboarding.definition, ExampleMachines.Map.definition, ExampleMachines.Kanji.definition,
        ExampleMachines.StateKit.definition, ExampleMachines.LoadingView.definition,
        ExampleMachines.Browser.definition, ExampleMachines.Upload.definition,
    ]

    /// Writes the seeds into `directory` (created when missing).
    static func write(into directory: String, engine: Engine) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var seeds: [(FuzzTarget, String, [UInt8])] = []
        for definition in examples {
            seeds.append((.scxmlImporter, definition.name, Array(definition.scxml().utf8)))
            seeds.append((.machineJSON, definition.name, Array(definition.jsonDocument())))
        }
        for (index, navigation) in [[NavigationOperation](), [.push("detail"), .pop], [.setRoot("home")]].enumerated() {
            let record = TransitionRecord(
                sequence: 1, session: try SessionID("seed-\(index)"), version: UInt64(index + 1),
                timestamp: Timestamp(microsecondsSince1970: 1_700_000_000_000_000), machine: "onboarding",
                definition: ExampleMachines.Onboarding.definition.contentVersion, event: "launch",
                source: ["initial"], target: ["greeting"], navigation: navigation,
                payload: Array(#"{"user":"ada"}"#.utf8), stateData: [],
                origin: index == 2 ? RecordOrigin(session: SessionID("parent"), version: 3) : nil)
            // An odd second byte: decoded as is (see FuzzTarget.recordDecoder).
            seeds.append((.recordDecoder, "record-\(index)", [1] + RecordCodec.encode(record)))
        }
        let archive = Blocking.run { () async -> [UInt8]? in
            do {
                try engine.register(try ExampleMachines.Onboarding.machine())
                let session = try await engine.startSession(id: "seed", machine: "onboarding", context: ["user": "ada"])
                try await session.send("launch")
                try await session.send("start")
                return Array(try engine.exportSession(session.id))
            } catch {
                return nil
            }
        }
        if let archive { seeds.append((.archiveImport, "archive-onboarding", archive)) }
        for (target, name, bytes) in seeds {
            let url = URL(fileURLWithPath: directory).appendingPathComponent("seed-\(target.rawValue)-\(name)")
            try Data([target.rawValue] + bytes).write(to: url)
        }
    }
}

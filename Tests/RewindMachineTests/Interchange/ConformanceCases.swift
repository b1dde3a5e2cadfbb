import Foundation

/// The SCXML conformance cases shared by the repository's sibling `shared/` folder
/// (`<repo>/../shared/conformance/scxml-test-framework`), found relative to this file. They are
/// never copied into the repository; tests that need them skip, printing why, when absent.
enum ConformanceCases {
    /// The folder holding the cases, or `nil` (after printing the reason) when it does not exist.
    static func folder(filePath: String = #filePath) -> URL? {
        let repository = URL(fileURLWithPath: filePath)
            .deletingLastPathComponent()  // Interchange
            .deletingLastPathComponent()  // RewindMachineTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // repository root
        let folder =
            repository
            .deletingLastPathComponent()
            .appendingPathComponent("shared/conformance/scxml-test-framework", isDirectory: true)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            print("Skipping SCXML conformance cases: \(folder.path) does not exist.")
            return nil
        }
        return folder
    }

    /// Every `.scxml` file under the folder, sorted by path (empty when the folder is absent).
    static func documents() -> [URL] {
        guard let folder = folder(),
            let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        else { return [] }
        var result: [URL] = []
        for case let url as URL in enumerator where url.pathExtension == "scxml" {
            result.append(url)
        }
        return result.sorted { $0.path < $1.path }
    }
}

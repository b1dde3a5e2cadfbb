// rewind-conformance DIR...: runs the SCXML test cases found in each DIR (recursively) against
// RewindMachine's SCXML import and interpreter. Each case is a NAME.scxml document plus a NAME.json
// script: {"initialConfiguration": [...], "events": [{"after": 100, "event": {"name": "t"},
// "nextConfiguration": [...]}]} with the expected sets of atomic active states ("after", a wait in
// milliseconds of the machine's clock, and "event" are each optional). Prints one line per failing
// case, then the known differences, then exactly `conformance: P passed, F failed`; exits non-zero
// when F > 0.
import Foundation
import RewindMachine

let arguments = Array(CommandLine.arguments.dropFirst())
guard !arguments.isEmpty else {
    FileHandle.standardError.write(Data("usage: rewind-conformance DIR...\n".utf8))
    exit(2)
}

var cases: [ConformanceCase] = []
for directory in arguments {
    let root = URL(fileURLWithPath: directory, isDirectory: true)
    // With several folders, each case's name starts with its folder's name.
    let prefix = arguments.count > 1 ? root.standardizedFileURL.lastPathComponent + "/" : ""
    let found = ConformanceCase.find(in: root, prefix: prefix)
    if found.isEmpty {
        FileHandle.standardError.write(Data("rewind-conformance: no *.scxml + *.json cases under \(directory)\n".utf8))
        exit(2)
    }
    cases += found
}

var passed = 0
var failed = 0
var known: [String] = []
for testCase in cases {
    let outcome = testCase.run()
    switch outcome {
    case .passed:
        passed += 1
    case .failed(let reason):
        if let justification = KnownDifferences.justification(for: testCase.name) {
            known.append(testCase.name)
            print("known difference \(testCase.name): \(reason) — \(justification)")
        } else {
            failed += 1
            print("FAIL \(testCase.name): \(reason)")
        }
    }
}
print("known differences: \(known.count)\(known.isEmpty ? "" : " (\(known.joined(separator: ", ")))")")
print("conformance: \(passed) passed, \(failed) failed")
exit(failed > 0 ? 1 : 0)

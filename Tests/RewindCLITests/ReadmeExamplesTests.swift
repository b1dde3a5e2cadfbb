import Foundation
import RewindTestSupport
import Testing

/// The README's terminal examples against a fresh demo store (`rewind demo`: 300 users, the
/// default seed): each `$ rewind …` line is run, and the lines the README shows under it — up to
/// the `…` that abridges them — are what the command prints, timestamps aside. The demo's own
/// funnels and stacks are checked the same way.
struct ReadmeExamplesTests {
    /// One `$ rewind …` example: its arguments and the output lines the README shows.
    struct Example {
        var arguments: [String]
        var lines: [String]
    }

    /// The README at the root of the package.
    static let readme = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("README.md")

    /// The code blocks of `markdown`, each as its lines.
    static func codeBlocks(in markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                if let block = current {
                    blocks.append(block)
                    current = nil
                } else {
                    current = []
                }
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The `$ rewind …` examples of the code blocks, each with the lines of its block before the
    /// next `$` or the first `…`.
    static func examples(in blocks: [[String]]) -> [Example] {
        var examples: [Example] = []
        for block in blocks {
            var current: Example?
            var abridged = false
            for line in block {
                if line.hasPrefix("$ rewind ") {
                    if let current { examples.append(current) }
                    current = Example(
                        arguments: line.dropFirst("$ rewind ".count).split(separator: " ").map(String.init), lines: [])
                    abridged = false
                } else if line == "…" {
                    abridged = true
                } else if !abridged {
                    current?.lines.append(line)
                }
            }
            if let current { examples.append(current) }
        }
        return examples
    }

    /// `line` with its timestamps replaced (they are the run's) and trailing spaces removed.
    static func stable(_ line: some StringProtocol) -> String {
        var result = String(line)
        while let range = result.range(of: #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"#, options: .regularExpression) {
            result.replaceSubrange(range, with: "<time>")
        }
        while result.hasSuffix(" ") { result.removeLast() }
        return result
    }

    @Test func theREADMEsExamplesMatchAFreshDemoStore() async throws {
        let markdown = try String(contentsOf: Self.readme, encoding: .utf8)
        let blocks = Self.codeBlocks(in: markdown)
        let examples = Self.examples(in: blocks)
        #expect(examples.count >= 5, "the README's examples were not found: \(examples.map(\.arguments))")
        let directory = try TemporaryDirectory(prefix: "rewind-readme")
        defer { directory.remove() }
        let tool = try RewindTool(store: directory.url.appendingPathComponent("rewind-store").path)

        // The demo's report: from the funnels to the first `…` of the README's demo block.
        let demo = try await tool.text(["demo"])
        let demoBlock = try #require(blocks.first { $0.first?.hasPrefix("Demo store: ") == true })
        let documented = demoBlock.drop { !$0.hasPrefix("Screen-flow funnels") }.prefix { $0 != "…" }
        #expect(documented.count > 10, "the README's demo block has no funnels")
        let printed = demo.split(separator: "\n", omittingEmptySubsequences: false).drop {
            !$0.hasPrefix("Screen-flow funnels")
        }
        #expect(
            printed.prefix(documented.count).map(Self.stable) == documented.map(Self.stable), "rewind demo:\n\(demo)")

        for example in examples {
            let output = try await tool.run(example.arguments)
            #expect(output.status == 0, "rewind \(example.arguments.joined(separator: " ")): \(output)")
            let lines = output.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(
                lines.prefix(example.lines.count).map(Self.stable) == example.lines.map(Self.stable),
                "rewind \(example.arguments.joined(separator: " ")) printed:\n\(output.stdout)")
        }
    }
}

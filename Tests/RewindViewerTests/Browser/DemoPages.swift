import Foundation
import Rewind
import RewindTestSupport

/// A store filled by `rewind demo`, the built `rewind` tool on it, and the pages it writes.
struct DemoPages: Sendable {
    /// A command that failed.
    struct CommandFailed: Error, CustomStringConvertible {
        var arguments: [String]
        var output: ProcessOutput
        var description: String { "rewind \(arguments.joined(separator: " ")): \(output)" }
    }

    /// What `rewind state SESSION --at V --json` prints (the fields the page shows).
    struct State: Decodable, Sendable {
        struct Entry: Decodable, Sendable {
            var screen: String
            var data: JSONValue?
        }
        var version: UInt64
        var event: String?
        var payload: JSONValue
        var configuration: [String]
        var activeStates: [String]
        var data: [String: JSONValue]
        var context: JSONValue
        var navigationStack: [Entry]
    }

    let directory: TemporaryDirectory
    let rewind: URL
    var store: String { directory.url.appendingPathComponent("store").path }

    /// The demo store every browser test reads (made once).
    static let shared = Task { try await DemoPages.make() }

    static func make() async throws -> DemoPages {
        guard let rewind = BuiltProduct.url(named: "rewind") else {
            throw WebDriver.Failure(description: "the rewind executable is not built: swift build --build-tests")
        }
        let pages = DemoPages(directory: try TemporaryDirectory(prefix: "rewind-viewer"), rewind: rewind)
        _ = try await pages.run(["demo", "--sessions", "24", "--seed", "2026"])
        return pages
    }

    /// Runs `rewind ARGUMENTS --store STORE` and expects success.
    @discardableResult
    func run(_ arguments: [String]) async throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C.UTF-8"
        let output = try await runProcess(rewind, arguments: arguments + ["--store", store], environment: environment)
        guard output.status == 0 else { throw CommandFailed(arguments: arguments, output: output) }
        return output.stdout
    }

    /// `rewind state SESSION --at VERSION --json`.
    func state(_ session: String, at version: UInt64) async throws -> State {
        let text = try await run(["state", session, "--at", String(version), "--json"])
        return try JSONDecoder().decode(State.self, from: Data(text.utf8))
    }

    /// A file path in the temporary directory.
    func file(_ name: String) -> URL {
        directory.url.appendingPathComponent(name)
    }

    /// The demo's sessions, longest first (read with an engine opened read-only).
    func sessions() throws -> [SessionInfo] {
        var configuration = EngineConfiguration()
        configuration.readOnly = true
        let engine = try Engine(directory: store, configuration: configuration)
        defer { engine.close() }
        return try engine.sessions().sorted {
            ($0.headVersion, $0.session.rawValue) > ($1.headVersion, $1.session.rawValue)
        }
    }
}

/// Where the tests write their screenshots: `.build/viewer-screenshots` under the package, or
/// `REWIND_SCREENSHOTS` when set.
enum Screenshots {
    static var folder: URL {
        if let path = ProcessInfo.processInfo.environment["REWIND_SCREENSHOTS"] { return URL(fileURLWithPath: path) }
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.appendingPathComponent(".build/viewer-screenshots")
    }

    static func write(_ png: Data, named name: String) throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name)
        try png.write(to: url)
        print("screenshot: \(url.path)")
        return url
    }
}

import Foundation

// The fleet server's browser tests compile this file too (a link in Server/Tests/…/Browser), with
// BuiltProduct.swift beside it instead of the root's test support.
#if canImport(RewindBaseTestSupport)
    import RewindBaseTestSupport
#endif

/// A small WebDriver client (W3C protocol, JSON over HTTP/1.1 on a plain socket) driving Debian's headless Chromium
/// through `chromedriver` on a free 127.0.0.1 port.
///
/// The project's own rather than Python's selenium: the tests stay in Swift and `swift test`, need
/// nothing from PyPI, and use a dozen endpoints of the protocol. (Plain sockets rather than
/// `URLSession`: FoundationNetworking's curl-based session failed chromedriver's replies with
/// "Failed writing header" on Linux.)
///
/// The browser runs with networking disabled (every proxied request goes to a closed port and
/// every host name resolves to nothing), so a page that needed the network would fail to work.
final class WebDriver: @unchecked Sendable {
    /// Why the browser cannot be used.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let driver: Process
    private let base: URL
    private let sessionID: String

    /// The chromium and chromedriver executables, or `nil` when either is missing.
    static var executables: (browser: URL, driver: URL)? {
        guard let browser = BuiltProduct.onPath(named: "chromium") ?? BuiltProduct.onPath(named: "chromium-browser"),
            let driver = BuiltProduct.onPath(named: "chromedriver")
        else { return nil }
        return (browser, driver)
    }

    /// Starts chromedriver and a headless browser of `width`×`height`. With `loopback`, pages
    /// on 127.0.0.1 (a test's server) can be reached; every other host still cannot.
    static func start(width: Int = 1280, height: Int = 800, loopback: Bool = false) async throws -> WebDriver {
        guard let executables else {
            throw Failure(
                description:
                    "chromium and chromedriver are not installed: apt-get install -y chromium chromium-driver (make test does it)"
            )
        }
        let port = try freePort()
        let process = Process()
        process.executableURL = executables.driver
        process.arguments = ["--port=\(port)", "--allowed-ips=127.0.0.1"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // chromedriver prints this line once it listens: wait for it (an event, not a delay).
        var seen = Data()
        let marker = Data("was started successfully".utf8)
        while seen.range(of: marker) == nil {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty {
                throw Failure(
                    description: "chromedriver exited before it was ready: \(String(decoding: seen, as: UTF8.self))")
            }
            seen.append(chunk)
        }
        let base = URL(string: "http://127.0.0.1:\(port)")!
        // The viewport is set exactly by device metrics (a headless window's size includes its
        // frame, and a window is at least 500 px wide); below 500 px as a touch phone.
        var options: [String: Any] = [:]
        let phone = width < 500
        options["mobileEmulation"] = [
            "deviceMetrics": [
                "width": width, "height": height, "pixelRatio": 1.0, "mobile": phone, "touch": phone,
            ] as [String: Any]
        ]
        options["binary"] = executables.browser.path
        options["args"] = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--window-size=\(max(width, 500)),\(height)", "--hide-scrollbars",
            "--proxy-server=127.0.0.1:9",
            loopback
                ? "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1" : "--host-resolver-rules=MAP * ~NOTFOUND",
            "--no-first-run", "--disable-extensions", "--disable-background-networking",
        ]
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "pageLoadStrategy": "normal",
                    "goog:chromeOptions": options,
                ] as [String: Any]
            ]
        ]
        do {
            let reply = try await request("POST", base.appendingPathComponent("session"), capabilities)
            guard let value = reply as? [String: Any], let id = value["sessionId"] as? String else {
                throw Failure(description: "no session id in \(String(describing: reply))")
            }
            let driver = WebDriver(
                driver: process, base: base.appendingPathComponent("session").appendingPathComponent(id), sessionID: id)
            _ = try await driver.command("POST", "timeouts", ["script": 60_000, "pageLoad": 60_000])
            return driver
        } catch {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw error
        }
    }

    private init(driver: Process, base: URL, sessionID: String) {
        self.driver = driver
        self.base = base
        self.sessionID = sessionID
    }

    /// Ends the browser session and chromedriver.
    func quit() async {
        _ = try? await command("DELETE", "", nil)
        kill(driver.processIdentifier, SIGKILL)
        driver.waitUntilExit()
    }

    /// Opens `url` and returns when it has loaded.
    func open(_ url: URL) async throws {
        _ = try await command("POST", "url", ["url": url.absoluteString])
    }

    /// Sends `headers` with every request the browser makes from now on (the Chrome DevTools
    /// Protocol's `Network.setExtraHTTPHeaders`, through chromedriver): a key for pages that take
    /// one in `Authorization`, which a URL must never carry.
    func sendHeaders(_ headers: [String: String]) async throws {
        _ = try await command("POST", "goog/cdp/execute", ["cmd": "Network.enable", "params": [String: Any]()])
        _ = try await command(
            "POST", "goog/cdp/execute", ["cmd": "Network.setExtraHTTPHeaders", "params": ["headers": headers]])
    }

    /// Runs `script` (a function body; `arguments[0]…`) in the page and returns its result.
    @discardableResult
    func execute(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
        try await command("POST", "execute/sync", ["script": script, "args": arguments])
    }

    /// Waits until the JavaScript expression `condition` is true, checking it on every animation
    /// frame inside the page (the deadline is the script timeout, 60 s).
    func wait(until condition: String) async throws {
        let script = """
            var done = arguments[arguments.length - 1];
            (function check() { var ok = false; try { ok = !!(\(condition)); } catch (e) {} if (ok) done(true); else requestAnimationFrame(check); })();
            """
        do {
            _ = try await command("POST", "execute/async", ["script": script, "args": [] as [Any]])
        } catch {
            throw Failure(description: "waiting for \(condition): \(error)")
        }
    }

    /// Presses `key` (a WebDriver key: ``Key``) on the focused element.
    func press(_ key: String) async throws {
        let actions: [String: Any] = [
            "actions": [
                [
                    "type": "key", "id": "keyboard",
                    "actions": [["type": "keyDown", "value": key], ["type": "keyUp", "value": key]],
                ] as [String: Any]
            ]
        ]
        _ = try await command("POST", "actions", actions)
    }

    /// Types `text` into the element matching `selector`.
    func type(_ text: String, into selector: String) async throws {
        let element = try await find(selector)
        _ = try await command("POST", "element/\(element)/value", ["text": text])
    }

    /// Clicks the element matching `selector`.
    func click(_ selector: String) async throws {
        let element = try await find(selector)
        _ = try await command("POST", "element/\(element)/click", [:] as [String: Any])
    }

    /// Goes back one entry in the browser's history (the toolbar's Back).
    func back() async throws {
        _ = try await command("POST", "back", [:] as [String: Any])
    }

    /// Makes the page see `scheme` ("light" or "dark") as the system's `prefers-color-scheme`
    /// (Chromium's DevTools emulation, through chromedriver).
    func emulateColorScheme(_ scheme: String) async throws {
        _ = try await command(
            "POST", "goog/cdp/execute",
            [
                "cmd": "Emulation.setEmulatedMedia",
                "params": ["features": [["name": "prefers-color-scheme", "value": scheme]]] as [String: Any],
            ])
    }

    /// Sets the window's size.
    func resize(width: Int, height: Int) async throws {
        _ = try await command("POST", "window/rect", ["width": width, "height": height])
    }

    /// A PNG of the viewport.
    func screenshot() async throws -> Data {
        guard let text = try await command("GET", "screenshot", nil) as? String, let data = Data(base64Encoded: text)
        else {
            throw Failure(description: "the screenshot is not base64")
        }
        return data
    }

    private func find(_ selector: String) async throws -> String {
        let reply = try await command("POST", "element", ["using": "css selector", "value": selector])
        guard let element = reply as? [String: Any], let id = element.values.first as? String else {
            throw Failure(description: "no element \(selector)")
        }
        return id
    }

    private func command(_ method: String, _ path: String, _ body: [String: Any]?) async throws -> Any? {
        let url = path.isEmpty ? base : base.appendingPathComponent(path)
        return try await Self.request(method, url, body)
    }

    private static func request(_ method: String, _ url: URL, _ body: [String: Any]?) async throws -> Any? {
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        let port = url.port ?? 80
        let path = url.path.isEmpty ? "/" : url.path
        // Blocking socket I/O on a thread of its own, off Swift's cooperative pool.
        let data: Data = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result { try HTTP.exchange(method: method, port: port, path: path, body: payload) })
            }
        }
        let object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        guard let reply = object as? [String: Any] else { throw Failure(description: "unexpected reply \(object)") }
        let value = reply["value"]
        if let error = value as? [String: Any], let kind = error["error"] as? String {
            throw Failure(description: "\(kind): \(error["message"] as? String ?? "")")
        }
        return value is NSNull ? nil : value
    }

    /// A free TCP port on 127.0.0.1 (bound to port 0, read, released).
    private static func freePort() throws -> Int {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw Failure(description: "bind() failed") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw Failure(description: "getsockname() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// WebDriver's codes for special keys.
    enum Key {
        static let left = "\u{E012}"
        static let right = "\u{E014}"
        static let home = "\u{E011}"
        static let end = "\u{E010}"
        static let enter = "\u{E007}"
        static let escape = "\u{E00C}"
    }
}

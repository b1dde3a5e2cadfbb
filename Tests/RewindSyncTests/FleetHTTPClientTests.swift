import Dispatch
import Foundation
import RewindSync
import RewindTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one HTTP client to the fleet server (the uploader's and the CLI's `--server`): its URLs, its
/// rules for a server URL, its messages from error bodies, and a request that gets no answer.
@Suite(.hangGuard) struct FleetHTTPClientTests {
    @Test func segmentsArePercentEncodedUnderTheBaseWithItsPathPrefix() throws {
        let client = FleetHTTPClient(base: try #require(URL(string: "http://127.0.0.1:8080/fleet")), key: "k")
        let url = try #require(
            client.url(
                ["v1", "stores", "s", "sessions", "a/b?c d#é"], query: [URLQueryItem(name: "after", value: "x y")]))
        #expect(
            url.absoluteString == "http://127.0.0.1:8080/fleet/v1/stores/s/sessions/a%2Fb%3Fc%20d%23%C3%A9?after=x%20y")
        let bare = FleetHTTPClient(base: try #require(URL(string: "https://fleet.example/")), key: "k")
        #expect(bare.url(["v1", "sessions"])?.absoluteString == "https://fleet.example/v1/sessions")
    }

    @Test func aServerURLIsHTTPOrHTTPSWithAHost() throws {
        for good in ["http://127.0.0.1:8080", "HTTPS://fleet.example/base"] {
            #expect(FleetHTTPClient.isServerURL(try #require(URL(string: good))), "\(good)")
        }
        for bad in ["ftp://fleet.example", "file:///tmp/x", "fleet.example:8080", "/v1/sessions", "http:///path"] {
            if let url = URL(string: bad) { #expect(!FleetHTTPClient.isServerURL(url), "\(bad)") }
        }
    }

    @Test func theMessageOfAnErrorBodyIsItsErrorElseTheStartOfTheBody() {
        #expect(
            FleetHTTPClient.message(of: Data(#"{"error":"a valid API key is required","n":1}"#.utf8))
                == "a valid API key is required")
        #expect(FleetHTTPClient.message(of: Data("<html>bad gateway</html>".utf8)) == "<html>bad gateway</html>")
        #expect(FleetHTTPClient.message(of: Data()) == "(empty body)")
        #expect(FleetHTTPClient.message(of: Data(String(repeating: "x", count: 500).utf8)).count == 200)
    }

    @Test func aRequestNobodyAnswersIsATransportErrorNamingTheRequest() async throws {
        // A port of 127.0.0.1 that was bound and released: nothing listens, the connection is refused.
        let port = try UploaderRetryTests.closedPort()
        let client = FleetHTTPClient(
            base: try #require(URL(string: "http://127.0.0.1:\(port)")), key: "k", timeout: .seconds(30))
        let url = try #require(client.url(["v1", "sessions"]))
        do {
            _ = try await client.send("GET", to: url)
            Issue.record("a request to a closed port got an answer")
        } catch let error as FleetHTTPClient.TransportError {
            #expect(error.method == "GET")
            #expect(error.url == url)
            #expect(error.description.hasPrefix("GET http://127.0.0.1:\(port)/v1/sessions: "))
        }
    }
}

/// The client's transport (libcurl on Linux, URLSession elsewhere) against a real HTTP server on
/// 127.0.0.1: what goes out, what comes back, kept-alive connections, concurrency, timeouts and
/// cancellation.
@Suite(.hangGuard) struct FleetHTTPClientTransportTests {
    @Test func aLargeBodyGoesByteForByteWithTheKeyAndItsContentTypeAndTheAnswerComesBack() async throws {
        let server = try LoopbackHTTPServer { request in
            LoopbackHTTPServer.Answer(status: 201, body: Array("{\"bytes\":\(request.body.count)}".utf8))
        }
        let client = FleetHTTPClient(base: try #require(URL(string: "http://127.0.0.1:\(server.port)")), key: "k1")
        // 3 MiB, every byte value, zeros included: larger than curl's upload buffer and its
        // 1 MiB `Expect: 100-continue` threshold.
        let body = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let url = try #require(client.url(["v1", "stores", "s", "records"]))
        let answer = try await client.send("POST", to: url, body: body, contentType: "application/x-rewind")
        #expect(answer.status == 201)
        #expect(answer.body == Data("{\"bytes\":\(3 << 20)}".utf8))
        #expect(answer.url == url)
        let received = try #require(server.requests.first)
        #expect(received.method == "POST")
        #expect(received.path == "/v1/stores/s/records")
        #expect(received.body == Array(body))
        #expect(received.headers["authorization"] == "Bearer k1")
        #expect(received.headers["content-type"] == "application/x-rewind")
        #expect(received.headers["accept"] == "application/json")
        #expect(received.headers["expect"] == nil)
    }

    @Test func aGetHasNoBodyOrContentTypeAndOtherMethodsGoAsNamed() async throws {
        let server = try LoopbackHTTPServer { request in
            LoopbackHTTPServer.Answer(status: 200, body: Array(request.method.utf8))
        }
        let client = FleetHTTPClient(base: try #require(URL(string: "http://127.0.0.1:\(server.port)")), key: "k")
        let url = try #require(client.url(["v1", "sessions"]))
        #expect(try await client.send("GET", to: url).body == Data("GET".utf8))
        #expect(try await client.send("PUT", to: url, body: Data("{}".utf8)).body == Data("PUT".utf8))
        #expect(try await client.send("DELETE", to: url).body == Data("DELETE".utf8))
        let requests = server.requests
        #expect(requests.map(\.method) == ["GET", "PUT", "DELETE"])
        #expect(requests[0].headers["content-type"] == nil)
        #expect(requests[0].body.isEmpty)
        #expect(requests[1].headers["content-type"] == "application/json")
        #expect(requests[1].body == Array("{}".utf8))
    }

    @Test func oneClientsRequestsOneAfterAnotherShareAKeptAliveConnection() async throws {
        let server = try LoopbackHTTPServer { _ in LoopbackHTTPServer.Answer(status: 200, body: Array("{}".utf8)) }
        let client = FleetHTTPClient(base: try #require(URL(string: "http://127.0.0.1:\(server.port)")), key: "k")
        let url = try #require(client.url(["v1", "stores", "s", "position"]))
        for _ in 0..<5 { _ = try await client.send("POST", to: url, body: Data(count: 100_000)) }
        #expect(server.requests.map(\.connection) == [1, 1, 1, 1, 1])
    }

    @Test func aKeptAliveConnectionClosedWithoutAnAnswerGetsTheWholeRequestAgain() async throws {
        // The second request on the first connection is read and the connection closed unanswered
        // (a server or proxy that dropped it): libcurl sends it again on a new connection.
        let server = try LoopbackHTTPServer { request in
            if request.connection == 1, request.path.hasSuffix("/2") { return nil }
            return LoopbackHTTPServer.Answer(status: 200, body: Array("{\"bytes\":\(request.body.count)}".utf8))
        }
        let client = FleetHTTPClient(base: try #require(URL(string: "http://127.0.0.1:\(server.port)")), key: "k")
        let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0) })
        for index in 1...2 {
            let answer = try await client.send("POST", to: try #require(client.url(["v1", "\(index)"])), body: body)
            #expect(answer.body == Data("{\"bytes\":300000}".utf8))
        }
        let requests = server.requests
        #expect(requests.map(\.path) == ["/v1/1", "/v1/2", "/v1/2"])
        #expect(requests.map(\.connection) == [1, 1, 2])
        #expect(requests.allSatisfy { $0.body == Array(body) })
    }

    @Test func concurrentRequestsEachGetTheirOwnAnswer() async throws {
        let server = try LoopbackHTTPServer { request in
            LoopbackHTTPServer.Answer(status: 200, body: Array(request.path.utf8))
        }
        let client = FleetHTTPClient(base: try #require(URL(string: "http://127.0.0.1:\(server.port)")), key: "k")
        let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<24 {
                group.addTask {
                    let url = try #require(client.url(["v1", "item-\(index)"]))
                    let answer = try await client.send("POST", to: url, body: Data(count: index * 10_000))
                    return (index, String(decoding: answer.body, as: UTF8.self))
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(answers.count == 24)
        for (index, body) in answers { #expect(body == "/v1/item-\(index)") }
    }

    @Test func aRequestUnansweredWithinItsTimeoutIsATransportError() async throws {
        let silent = try SilentListener()
        let client = FleetHTTPClient(
            base: try #require(URL(string: "http://127.0.0.1:\(silent.port)")), key: "k", timeout: .milliseconds(300))
        let url = try #require(client.url(["v1", "sessions"]))
        do {
            _ = try await client.send("GET", to: url)
            Issue.record("a request nobody answers got an answer")
        } catch let error as FleetHTTPClient.TransportError {
            #expect(error.method == "GET")
            #expect(error.message.contains("no answer within 0.3 s"), "\(error.message)")
        }
    }

    @Test func aCancelledRequestEndsAtOnceAndTheClientGoesOn() async throws {
        let silent = try SilentListener()
        let answering = try LoopbackHTTPServer { _ in LoopbackHTTPServer.Answer(status: 200, body: Array("ok".utf8)) }
        let client = FleetHTTPClient(
            base: try #require(URL(string: "http://127.0.0.1:\(silent.port)")), key: "k", timeout: .seconds(600))
        let hanging = try #require(client.url(["v1", "sessions"]))
        let request = Task { try await client.send("POST", to: hanging, body: Data(count: 200_000)) }
        let connection = await silent.acceptOne()
        defer { close(connection) }
        request.cancel()
        let result = await request.result
        #expect(throws: CancellationError.self) { try result.get() }

        // The same client (and its transport's thread) still answers.
        let answered = try #require(URL(string: "http://127.0.0.1:\(answering.port)/v1/sessions"))
        #expect(try await client.send("GET", to: answered).body == Data("ok".utf8))
    }
}

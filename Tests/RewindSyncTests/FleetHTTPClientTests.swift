import Foundation
import RewindSync
import RewindTestSupport
import Testing

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

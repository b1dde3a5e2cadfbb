import Foundation
import RewindServer
import Testing

/// Every error answer is the README's JSON (`{"error": …}` with `Content-Type: application/json`),
/// also those Hummingbird makes itself (an unknown path, a streamed body past the limit), and an
/// upload says what type its body must be (415).
@Suite(.timeLimit(.minutes(10))) struct JSONErrorTests {
    @Test func anUnknownPathIsAJSON404() async throws {
        let server = try await TestServer.start()
        let response = try await server.request("GET", "/v1/no-such-thing")
        try expectJSONError(response, status: 404)
        try await server.stop()
    }

    @Test func anOversizedChunkedUploadIsAJSON413() async throws {
        let server = try await TestServer.start(maximumBodyBytes: 4096)
        let device = try Device()
        try await device.writeSessions(30, prefix: "chunked")
        let body = try device.batch().encoded()
        #expect(body.count > 4096)
        // The body in chunks of 1,000 bytes, with no Content-Length: the limit is met while reading.
        var bytes = Array(
            """
            POST /v1/stores/\(device.storeID.uuidString)/records HTTP/1.1\r
            Host: 127.0.0.1\r
            Connection: close\r
            Authorization: Bearer \(server.app.ingestKey.token)\r
            Content-Type: \(IngestionBatch.mediaType)\r
            Transfer-Encoding: chunked\r
            \r

            """.utf8)
        var offset = 0
        while offset < body.count {
            let chunk = body[offset..<min(offset + 1000, body.count)]
            bytes += Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + Array("\r\n".utf8)
            offset += chunk.count
        }
        bytes += Array("0\r\n\r\n".utf8)
        let response = try await RawHTTP.exchange(port: server.port, bytes: bytes)
        let object = try expectJSONError(response, status: 413)
        #expect(object["maximumBodyBytes"] as? Int == 4096, "\(response.text)")
        try await server.database.expectHoldsPrefix(of: device, count: 0)
        try await server.stop()
    }

    @Test func anUploadOfAnotherContentTypeIsAJSON415() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.writeSessions(2, prefix: "typed")
        let body = try device.batch().encoded()
        let path = "/v1/stores/\(device.storeID.uuidString)/records"
        for type in ["application/json", "text/plain", "application/octet-stream"] {
            let response = try await server.request(
                "POST", path, key: server.app.ingestKey, body: body, headers: [("Content-Type", type)])
            let object = try expectJSONError(response, status: 415)
            #expect(object["expectedContentType"] as? String == IngestionBatch.mediaType)
            #expect((object["error"] as? String)?.contains(type) == true, "\(response.text)")
        }
        // No Content-Type at all.
        let head = """
            POST \(path) HTTP/1.1\r
            Host: 127.0.0.1\r
            Connection: close\r
            Authorization: Bearer \(server.app.ingestKey.token)\r
            Content-Length: \(body.count)\r
            \r

            """
        let untyped = try await RawHTTP.exchange(port: server.port, bytes: Array(head.utf8) + body)
        try expectJSONError(untyped, status: 415)
        try await server.database.expectHoldsPrefix(of: device, count: 0)
        // The batch's type, with a parameter or in capitals, is accepted.
        let accepted = try await server.request(
            "POST", path, key: server.app.ingestKey, body: body,
            headers: [("Content-Type", IngestionBatch.mediaType.uppercased() + "; v=1")])
        #expect(accepted.status == 200, "\(accepted.text)")
        try await server.database.expectHoldsPrefix(of: device, count: try device.records().count)
        try await server.stop()
    }

    @discardableResult
    private func expectJSONError(
        _ response: HTTPTestResponse, status: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: Any] {
        #expect(response.status == status, "\(response.status) \(response.text)", sourceLocation: sourceLocation)
        #expect(response.headers["content-type"] == "application/json", sourceLocation: sourceLocation)
        let object = try response.object()
        #expect((object["error"] as? String)?.isEmpty == false, "\(response.text)", sourceLocation: sourceLocation)
        return object
    }
}

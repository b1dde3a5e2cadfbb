import Foundation
import Hummingbird
import RewindWire

/// An error answer of the API: a status and a JSON body `{"error": message, …details}`.
///
/// Details say where a problem is (`recordIndex`, `sequence`, `offset`) or what to do next
/// (`nextSequence` on a 409).
public struct APIError: HTTPResponseError, CustomStringConvertible {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// What was wrong, for a person.
    public var message: String
    /// Machine-readable details, merged into the JSON body.
    public var details: [String: Detail]
    /// Headers of the answer besides `Content-Type` (`Retry-After` on a 503).
    public var headers: HTTPFields

    /// A detail's value: a number or a text.
    public typealias Detail = ErrorAnswer.Detail

    /// An error answer.
    public init(
        _ status: HTTPResponse.Status, _ message: String, details: [String: Detail] = [:], headers: HTTPFields = [:]
    ) {
        self.status = status
        self.message = message
        self.details = details
        self.headers = headers
    }

    /// The status and message.
    public var description: String { "\(status.code) \(message)" }

    /// The JSON body.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try JSONResponse.make(status: status, body: ErrorAnswer(error: message, details: details))
        response.headers.append(contentsOf: headers)
        return response
    }

    /// The answer while the database does not answer: 503, `Retry-After: seconds`, and
    /// `retryAfter` in the body.
    static func databaseUnavailable(retryAfterSeconds seconds: Int) -> APIError {
        APIError(
            .serviceUnavailable, "the database does not answer: try again in \(seconds) s",
            details: ["retryAfter": .integer(Int64(seconds))], headers: [.retryAfter: "\(seconds)"])
    }

    /// The answer when the key has `limit` requests in progress and none ended in time: 429,
    /// `Retry-After: 1`.
    static func tooManyRequests(limit: Int) -> APIError {
        APIError(
            .tooManyRequests, "this key has its \(limit) requests at once in progress: try again in 1 s",
            details: ["retryAfter": .integer(1)], headers: [.retryAfter: "1"])
    }

    static let unauthorized = APIError(.unauthorized, "a valid API key is required (Authorization: Bearer rewind_…)")

    static func forbidden(_ kind: KeyKind, needs: KeyKind) -> APIError {
        APIError(.forbidden, "this is \(kind.phrase); this endpoint needs \(needs.phrase)")
    }
}

/// Sorted-key JSON responses.
enum JSONResponse {
    static func make(status: HTTPResponse.Status = .ok, body: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(body)
        return Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

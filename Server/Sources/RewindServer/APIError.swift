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

    /// A detail's value: a number or a text.
    public typealias Detail = ErrorAnswer.Detail

    /// An error answer.
    public init(_ status: HTTPResponse.Status, _ message: String, details: [String: Detail] = [:]) {
        self.status = status
        self.message = message
        self.details = details
    }

    /// The status and message.
    public var description: String { "\(status.code) \(message)" }

    /// The JSON body.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        try JSONResponse.make(status: status, body: ErrorAnswer(error: message, details: details))
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

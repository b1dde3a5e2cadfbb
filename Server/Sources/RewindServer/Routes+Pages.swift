import Foundation
import Hummingbird

/// The HTML pages' door: a read key as a bearer token, or — for a browser — as the password of
/// HTTP Basic authentication (any user name). Without a valid key a page answers 401 with
/// `WWW-Authenticate: Basic` (one realm for every page), so the browser asks for the key once and
/// sends it to the fleet page and the session pages it links to. A key is never put in the URL
/// (URLs end up in logs and histories).
extension Routes {
    /// The realm the pages share.
    static let pageRealm = "rewind fleet"

    /// Answers `request` with the page `body` makes for its caller, or with an HTML 401 or 403
    /// when the request has no read key.
    func page(_ request: Request, _ body: (Caller) async throws -> Response) async throws -> Response {
        let caller: Caller
        do {
            caller = try await pageCaller(request)
        } catch let error as APIError where error.status == .unauthorized {
            return FleetPage.response(
                status: .unauthorized,
                body: FleetPage.message(
                    "A read key is needed", "Enter the app's read key as the password (any user name)."),
                headers: [.wwwAuthenticate: "Basic realm=\"\(Self.pageRealm)\", charset=\"UTF-8\""])
        } catch let error as APIError where error.status == .forbidden {
            return FleetPage.response(
                status: .forbidden, body: FleetPage.message("This is not a read key", error.message))
        }
        return try await body(caller)
    }

    /// The caller of a page: a read key as a bearer token or as the Basic password.
    private func pageCaller(_ request: Request) async throws -> Caller {
        if let header = request.headers[.authorization], header.hasPrefix("Basic ") {
            guard let data = Data(base64Encoded: String(header.dropFirst("Basic ".count))),
                let credentials = String(data: data, encoding: .utf8), let colon = credentials.firstIndex(of: ":"),
                let caller = try await keys.authenticate(token: String(credentials[credentials.index(after: colon)...]))
            else { throw APIError.unauthorized }
            guard caller.kind == .read else { throw APIError.forbidden(caller.kind, needs: .read) }
            try await admit(caller)
            return caller
        }
        return try await authenticate(request, needs: .read)
    }
}

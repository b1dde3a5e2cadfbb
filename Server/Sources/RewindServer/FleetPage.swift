import Foundation
import Hummingbird
import Rewind
@_spi(Internals) import RewindMachine
import RewindWire

/// `GET /v1/pages/fleet`: one self-contained HTML page (inline CSS, no script, no external URL)
/// with the app's machines, each one's funnel, and a page of the session list, computed by the
/// same queries as the JSON endpoints.
///
/// The read key comes in `Authorization: Bearer KEY`, or, for a browser, as the password of
/// HTTP Basic authentication (any user name): without a valid key the page answers 401 with
/// `WWW-Authenticate: Basic`, so the browser asks for it once and sends it with every page after.
/// A key is never put in the URL (URLs end up in logs and histories).
extension Routes {
    func fleetPage(_ request: Request) async throws -> Response {
        let caller: Caller
        do {
            caller = try await pageCaller(request)
        } catch let error as APIError where error.status == .unauthorized {
            return FleetPage.response(
                status: .unauthorized,
                body: FleetPage.message(
                    "A read key is needed", "Enter the app's read key as the password (any user name)."),
                headers: [.wwwAuthenticate: "Basic realm=\"rewind fleet\", charset=\"UTF-8\""])
        } catch let error as APIError where error.status == .forbidden {
            return FleetPage.response(
                status: .forbidden, body: FleetPage.message("This is not a read key", error.message))
        }
        let parameters = QueryParameters(request)
        let filter = try Self.sessionFilter(parameters, defaultLimit: 50)
        let queries = self.queries
        var machines: [FleetPage.Machine] = []
        for (machine, sessions) in try await queries.machines(appID: caller.appID) {
            let funnel = try await queries.funnel(appID: caller.appID, machine: machine, range: filter.range)
            machines.append(FleetPage.Machine(name: machine, sessions: sessions, funnel: funnel))
        }
        let page = try await queries.sessions(appID: caller.appID, filter)
        var nextQuery: [(String, String)] = [("limit", String(filter.limit))]
        for (name, value) in [
            ("machine", filter.machine), ("state", filter.state), ("store", filter.store?.uuidString),
            ("from", filter.range.from.map(String.init)), ("to", filter.range.to.map(String.init)),
        ] {
            if let value { nextQuery.append((name, value)) }
        }
        let next = page.next.map { cursor in
            "/v1/pages/fleet?"
                + (nextQuery + [("cursor", cursor.text)])
                .map { "\($0.0)=\(FleetPage.queryEscaped($0.1))" }.joined(separator: "&")
        }
        return FleetPage.response(
            status: .ok,
            body: FleetPage.render(
                machines: machines, sessions: page.sessions, range: filter.range, next: next))
    }

    /// The caller of the page: a read key as a bearer token or as the Basic password.
    private func pageCaller(_ request: Request) async throws -> Caller {
        if let header = request.headers[.authorization], header.hasPrefix("Basic ") {
            guard let data = Data(base64Encoded: String(header.dropFirst("Basic ".count))),
                let credentials = String(data: data, encoding: .utf8), let colon = credentials.firstIndex(of: ":"),
                let caller = try await keys.authenticate(token: String(credentials[credentials.index(after: colon)...]))
            else { throw APIError.unauthorized }
            guard caller.kind == .read else { throw APIError.forbidden(caller.kind, needs: .read) }
            return caller
        }
        return try await authenticate(request, needs: .read)
    }
}

/// The fleet page's HTML.
enum FleetPage {
    /// A machine's section.
    struct Machine {
        var name: String
        var sessions: Int64
        var funnel: Funnel
    }

    /// The page's CSS: the session viewer's colours (RewindViewer's `ViewerStyle`, which is internal
    /// to the root package), light and dark.
    static let css = """
        :root{--bg:#f7f7f5;--fg:#1d1f21;--muted:#6a6f75;--panel:#fff;--line:#dcdcd6;--accent:#d9822b;--accent-bg:#fbe7cf;\
        font-family:system-ui,-apple-system,"Segoe UI",sans-serif;font-size:14px;color-scheme:light dark}
        @media (prefers-color-scheme:dark){:root{--bg:#15171a;--fg:#e6e6e3;--muted:#9aa1a8;--panel:#1e2125;--line:#33383e;\
        --accent:#f2a93b;--accent-bg:#4a3415}}
        *{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg)}
        h1{font-size:16px;margin:0;font-weight:600}h2{font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:0 0 6px}
        h3{font-size:14px;margin:0 0 4px;word-break:break-all}
        .rw-top{padding:8px 12px;border-bottom:1px solid var(--line);background:var(--panel)}
        main{padding:8px 12px;display:grid;gap:8px}
        .rw-panel{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:8px;overflow:auto}
        .rw-machines{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:8px}
        .rw-meta{color:var(--muted);font-size:12px}
        table{border-collapse:collapse;width:100%;font-size:12px;font-variant-numeric:tabular-nums}
        th,td{text-align:left;padding:2px 6px;border-bottom:1px solid var(--line);white-space:nowrap}
        td.rw-n{text-align:right}
        .rw-bar{display:inline-block;height:8px;background:var(--accent);border-radius:2px;margin-right:6px;vertical-align:middle}
        a{color:var(--accent)}
        """

    static func response(status: HTTPResponse.Status, body: String, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "text/html; charset=utf-8"
        fields[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    static func message(_ title: String, _ text: String) -> String {
        document(title: title, body: "<main><section class=\"rw-panel\"><p>\(escaped(text))</p></section></main>")
    }

    static func document(title: String, body: String) -> String {
        """
        <!doctype html><html lang="en"><head><meta charset="utf-8">\
        <meta name="viewport" content="width=device-width,initial-scale=1"><title>\(escaped(title))</title>\
        <style>\(css)</style></head><body><header class="rw-top"><h1>\(escaped(title))</h1></header>\(body)</body></html>
        """
    }

    /// The page: machines with their funnels (states by how many sessions reached them), then
    /// the sessions, each row and cell carrying its numbers in `data-` attributes too.
    static func render(
        machines: [Machine], sessions: [FleetQueries.SessionSummary], range: TimeRange, next: String?
    ) -> String {
        var html = "<main>"
        html += "<section class=\"rw-panel\" id=\"machines\"><h2>Machines</h2>"
        if let from = range.from { html += "<p class=\"rw-meta\">Sessions updated from \(escaped(time(from)))</p>" }
        if let to = range.to { html += "<p class=\"rw-meta\">Sessions updated before \(escaped(time(to)))</p>" }
        if machines.isEmpty { html += "<p class=\"rw-meta\">No session has been uploaded yet.</p>" }
        html += "<div class=\"rw-machines\">"
        for machine in machines {
            let funnel = machine.funnel
            html +=
                "<article class=\"rw-machine\" data-machine=\"\(escaped(machine.name))\" data-sessions=\"\(machine.sessions)\" "
            html += "data-funnel-sessions=\"\(funnel.sessions)\"><h3>\(escaped(machine.name))</h3>"
            html += "<p class=\"rw-meta\">\(machine.sessions) sessions; funnel over \(funnel.sessions)</p>"
            html +=
                "<table class=\"rw-funnel\"><thead><tr><th>state</th><th>reached</th><th>stopped here</th></tr></thead><tbody>"
            let states = funnel.reached.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            for (state, reached) in states {
                let stopped = funnel.stoppedAt[state] ?? 0
                let width = funnel.sessions > 0 ? reached * 100 / funnel.sessions : 0
                html += "<tr data-state=\"\(escaped(state))\" data-reached=\"\(reached)\" data-stopped=\"\(stopped)\">"
                html +=
                    "<td>\(escaped(state))</td><td class=\"rw-n\"><span class=\"rw-bar\" style=\"width:\(width)px\"></span>\(reached)</td>"
                html += "<td class=\"rw-n\">\(stopped)</td></tr>"
            }
            html += "</tbody></table></article>"
        }
        html += "</div></section>"
        html +=
            "<section class=\"rw-panel\" id=\"sessions\"><h2>Sessions</h2><table><thead><tr><th>store</th><th>session</th>"
        html +=
            "<th>machine</th><th>configuration</th><th>version</th><th>last update</th><th>last event</th></tr></thead><tbody>"
        for session in sessions {
            html += "<tr data-store=\"\(session.storeID)\" data-session=\"\(escaped(session.sessionID))\" "
            html += "data-machine=\"\(escaped(session.machine))\" data-version=\"\(session.headVersion)\">"
            html +=
                "<td>\(session.storeID)</td><td>\(escaped(session.sessionID))</td><td>\(escaped(session.machine))</td>"
            html += "<td>\(escaped((session.configuration ?? []).joined(separator: ", ")))</td>"
            html +=
                "<td class=\"rw-n\">\(session.headVersion)</td><td>\(escaped(time(session.lastRecordedAtMicroseconds)))</td>"
            html += "<td>\(escaped(session.lastEvent))</td></tr>"
        }
        html += "</tbody></table>"
        if let next { html += "<p><a rel=\"next\" href=\"\(escaped(next))\">Next page</a></p>" }
        html += "</section></main>"
        return document(title: "Rewind fleet", body: html)
    }

    /// µs since 1970 as RFC 3339 (UTC).
    static func time(_ microseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(microseconds) / 1_000_000))
    }

    /// Text for HTML content and quoted attribute values: the viewer's escaper.
    static func escaped(_ text: String) -> String {
        XMLText.escape(text)
    }

    /// A query parameter's value, percent-encoded.
    static func queryEscaped(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}

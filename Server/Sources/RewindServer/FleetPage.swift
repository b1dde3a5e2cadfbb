import Foundation
import Hummingbird
import Rewind
@_spi(Internals) import RewindMachine
import RewindWire

/// `GET /v1/pages/fleet`: the page a product owner opens every morning. One self-contained HTML
/// page (inline CSS and SVG, no script, no external URL): the app's totals; the filters as a form
/// (machine, days, state); per machine its funnel in the flow's order (the share of sessions that
/// reached each step, the drop-off from the step before, and where sessions stopped, linking to
/// them) and its sessions by day; then a page of the sessions in natural order, grouped by device,
/// each linking to its session page. Computed by the same queries as the JSON endpoints, with one
/// range applied to every number: sessions whose last record is in it. Authenticated as every
/// page is (``Routes/page(_:_:)``).
extension Routes {
    func fleetPage(_ request: Request) async throws -> Response {
        try await page(request) { caller in
            // A form's blank fields arrive empty: they mean "any".
            let parameters = QueryParameters(request, ignoringEmptyValues: true)
            let filter = try Self.sessionFilter(parameters, defaultLimit: 50)
            let queries = self.queries
            // Every machine's counts: the form lists every machine with sessions in the range.
            let tally = try await queries.tally(appID: caller.appID, machine: nil, range: filter.range)
            let all = tally.machines.filter { $0.value.sessions > 0 }.keys.sorted()
            var machines: [FleetPage.Machine] = []
            for machine in all where filter.machine == nil || filter.machine == machine {
                let definition = try await queries.latestDefinition(appID: caller.appID, machine: machine)
                let finishing = FleetPage.finishingStates(of: definition)
                machines.append(
                    FleetPage.Machine(
                        name: machine, sessions: tally.machines[machine]?.sessions ?? 0, funnel: tally.funnel(machine),
                        definition: definition, finishing: finishing,
                        trend: tally.trend(machine, finishing: finishing.states)))
            }
            let overview = try await queries.overview(appID: caller.appID, tally: tally, machine: filter.machine)
            let page = try await queries.sessions(appID: caller.appID, filter)
            let contents = FleetPage.Contents(
                overview: overview, machineNames: all, machines: machines, filter: filter,
                sessions: page.sessions, next: page.next)
            return FleetPage.response(status: .ok, body: FleetPage.render(contents))
        }
    }
}

/// The fleet page's HTML.
enum FleetPage {
    /// A machine's section.
    struct Machine {
        var name: String
        /// Its sessions last updated in the page's range.
        var sessions: Int64
        var funnel: Funnel
        /// The definition received last, `nil` when none decodes.
        var definition: MachineDefinition?
        var finishing: Finishing
        var trend: [FleetDay]
    }

    /// The states in which a session of a machine counts as finished, and why those.
    struct Finishing {
        var states: [String]
        /// Whether they are the definition's final states (or, none declared, its states with no
        /// way out).
        var declaredFinal: Bool
    }

    /// Everything the page shows.
    struct Contents {
        var overview: FleetOverview
        /// Every machine with sessions in the range (the form's choices).
        var machineNames: [String]
        /// The machines shown (one, when the filter names it).
        var machines: [Machine]
        var filter: FleetQueries.SessionFilter
        var sessions: [FleetQueries.SessionSummary]
        var next: SessionCursor?
    }

    /// The states of `definition` in which a session is finished: its final states or, when it
    /// declares none (a routes table's screens), its states without children or transitions
    /// (screens with no way out). Empty without a definition.
    static func finishingStates(of definition: MachineDefinition?) -> Finishing {
        guard let definition else { return Finishing(states: [], declaredFinal: false) }
        var finals: [String] = []
        var deadEnds: [String] = []
        func walk(_ states: [StateDefinition]) {
            for state in states {
                if state.kind == .final { finals.append(state.id) }
                if state.kind != .history, state.children.isEmpty, state.transitions.isEmpty {
                    deadEnds.append(state.id)
                }
                walk(state.children)
            }
        }
        walk(definition.states)
        return finals.isEmpty
            ? Finishing(states: deadEnds, declaredFinal: false) : Finishing(states: finals, declaredFinal: true)
    }

    /// The page's CSS: the session viewer's colours (RewindViewer's `ViewerStyle`, which is internal
    /// to the root package), light and dark; one column on a phone.
    static let css = """
        :root{--bg:#f7f7f5;--fg:#1d1f21;--muted:#6a6f75;--panel:#fff;--line:#dcdcd6;--accent:#d9822b;--accent-bg:#fbe7cf;\
        --done:#3f8f5a;font-family:system-ui,-apple-system,"Segoe UI",sans-serif;font-size:14px;color-scheme:light dark}
        @media (prefers-color-scheme:dark){:root{--bg:#15171a;--fg:#e6e6e3;--muted:#9aa1a8;--panel:#1e2125;--line:#33383e;\
        --accent:#f2a93b;--accent-bg:#4a3415;--done:#6cc38a}}
        *{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg)}
        h1{font-size:16px;margin:0;font-weight:600}h2{font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:0 0 6px}
        h3{font-size:14px;margin:0 0 4px;word-break:break-all}
        .rw-top{padding:8px 12px;border-bottom:1px solid var(--line);background:var(--panel)}
        main{padding:8px 12px;display:grid;gap:8px;min-width:0}
        .rw-panel{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:8px;overflow:auto;min-width:0}
        .rw-totals{display:grid;grid-template-columns:repeat(auto-fit,minmax(130px,1fr));gap:8px;margin:0}
        .rw-totals div{border-left:3px solid var(--accent);padding:2px 8px}.rw-totals dt{color:var(--muted);font-size:12px}
        .rw-totals dd{margin:0;font-size:18px;font-variant-numeric:tabular-nums;word-break:break-all}
        form{display:flex;flex-wrap:wrap;gap:8px;align-items:end}label{display:grid;gap:2px;font-size:12px;color:var(--muted)}
        input,select,button{font:inherit;padding:3px 6px;max-width:100%}
        .rw-machines{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,340px),1fr));gap:8px}
        .rw-machine{min-width:0}.rw-funnel th{white-space:normal;vertical-align:bottom}
        .rw-funnel td:first-child{white-space:normal;overflow-wrap:anywhere}
        .rw-meta{color:var(--muted);font-size:12px}
        table{border-collapse:collapse;width:100%;font-size:12px;font-variant-numeric:tabular-nums}
        th,td{text-align:left;padding:2px 6px;border-bottom:1px solid var(--line);white-space:nowrap}
        td.rw-n,th.rw-n{text-align:right}tr.rw-device th{padding-top:8px;font-weight:600;word-break:break-all;white-space:normal}
        .rw-bar{display:inline-block;height:8px;background:var(--accent);border-radius:2px;margin-right:6px;vertical-align:middle}
        .rw-drop{color:var(--muted)}svg.rw-trend{width:100%;height:auto;display:block}
        .rw-started{fill:var(--accent)}.rw-finished{fill:var(--done)}.rw-axis{stroke:var(--line)}
        .rw-label{fill:var(--muted);font-size:9px}
        .rw-key{display:inline-block;width:9px;height:9px;border-radius:2px;margin:0 4px 0 8px}
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

    /// µs since 1970 as RFC 3339 (UTC).
    static func time(_ microseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(microseconds) / 1_000_000))
    }

    /// Days since 1970 as `YYYY-MM-DD` (UTC).
    static func day(_ day: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: Date(timeIntervalSince1970: Double(day) * 86_400))
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

    /// A path segment, percent-encoded.
    static func pathEscaped(_ text: String) -> String { queryEscaped(text) }

    /// The page's URL with `parameters` (those with a value), HTML-escaped for an attribute.
    static func link(_ parameters: [(String, String?)], fragment: String? = nil) -> String {
        let query = parameters.compactMap { name, value in value.map { "\(name)=\(queryEscaped($0))" } }
        var url = "/v1/pages/fleet" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        if let fragment { url += "#" + fragment }
        return escaped(url)
    }
}

import Foundation
import Rewind

extension FleetPage {
    /// The page. Every number is in the markup twice: as text and in a `data-` attribute that
    /// tests and scripts read.
    static func render(_ contents: Contents) -> String {
        var html = "<main>"
        html += overview(contents.overview, filter: contents.filter)
        html += form(contents)
        html += "<section class=\"rw-panel\" id=\"machines\"><h2>Machines</h2>"
        if contents.machines.isEmpty {
            html += "<p class=\"rw-meta\">No session has been uploaded yet"
            html +=
                contents.filter.range == TimeRange() && contents.filter.machine == nil ? ".</p>" : " in this range.</p>"
        }
        html += "<div class=\"rw-machines\">"
        for machine in contents.machines { html += section(machine, filter: contents.filter) }
        html += "</div></section>"
        html += sessionList(contents)
        html += "</main>"
        return document(title: "Rewind fleet", body: html)
    }

    /// The filter's parameters, for links that keep it.
    static func parameters(_ filter: FleetQueries.SessionFilter) -> [(String, String?)] {
        [
            ("machine", filter.machine), ("state", filter.state), ("store", filter.store?.uuidString.lowercased()),
            ("from", filter.range.from.map(String.init)), ("to", filter.range.to.map(String.init)),
        ]
    }

    private static func overview(_ overview: FleetOverview, filter: FleetQueries.SessionFilter) -> String {
        var html = "<section class=\"rw-panel\" id=\"overview\"><h2>The app</h2><dl class=\"rw-totals\">"
        func total(_ name: String, _ label: String, _ value: String, data: String) {
            html += "<div data-total=\"\(name)\" data-value=\"\(escaped(data))\"><dt>\(label)</dt>"
            html += "<dd>\(escaped(value))</dd></div>"
        }
        total("devices", "devices", "\(overview.devices)", data: "\(overview.devices)")
        total("sessions", "sessions", "\(overview.sessions)", data: "\(overview.sessions)")
        total("records", "records", "\(overview.records)", data: "\(overview.records)")
        let upload = overview.lastUpload.map { time(Int64(($0.timeIntervalSince1970 * 1_000_000).rounded())) }
        total("last-upload", "last upload", upload ?? "never", data: upload ?? "")
        total(
            "projection-lag", "projection lag",
            overview.projectionLag == 0 ? "caught up" : "\(overview.projectionLag) records",
            data: "\(overview.projectionLag)")
        html += "</dl>"
        var scope: [String] = []
        if let machine = filter.machine { scope.append("machine \(machine)") }
        if let from = filter.range.from { scope.append("last updated from \(time(from))") }
        if let to = filter.range.to { scope.append("before \(time(to))") }
        if !scope.isEmpty {
            html += "<p class=\"rw-meta\">Sessions and records of \(escaped(scope.joined(separator: ", "))).</p>"
        }
        return html + "</section>"
    }

    private static func form(_ contents: Contents) -> String {
        let filter = contents.filter
        var html = "<section class=\"rw-panel\" id=\"filters\"><h2>Filters</h2>"
        html += "<form method=\"get\" action=\"/v1/pages/fleet\"><label>machine<select name=\"machine\">"
        html += "<option value=\"\"\(filter.machine == nil ? " selected" : "")>every machine</option>"
        for name in contents.machineNames {
            html +=
                "<option value=\"\(escaped(name))\"\(filter.machine == name ? " selected" : "")>\(escaped(name))</option>"
        }
        html += "</select></label>"
        // The days shown are those the range covers (its `to` is the first µs past the range).
        let from = filter.range.from.map { day(floorDiv($0, FleetQueries.microsecondsPerDay)) } ?? ""
        let to = filter.range.to.map { day(floorDiv($0 - 1, FleetQueries.microsecondsPerDay)) } ?? ""
        html += "<label>updated from<input type=\"date\" name=\"from\" value=\"\(from)\"></label>"
        html += "<label>to (the day included)<input type=\"date\" name=\"to\" value=\"\(to)\"></label>"
        html +=
            "<label>sessions in state<input type=\"text\" name=\"state\" value=\"\(escaped(filter.state ?? ""))\"></label>"
        html += "<input type=\"hidden\" name=\"limit\" value=\"\(filter.limit)\">"
        html += "<button type=\"submit\">Apply</button> <a href=\"/v1/pages/fleet\">clear</a></form></section>"
        return html
    }

    /// `value` divided by `divisor`, rounded down (also for times before 1970).
    static func floorDiv(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }

    /// The funnel's steps in the flow's order: the definition's states in document order (then
    /// any other state sessions reached, by name), or by how many reached them without a
    /// definition; only steps some session reached.
    static func steps(_ machine: Machine) -> [(state: String, reached: Int, stopped: Int)] {
        let funnel = machine.funnel
        var order: [String]
        if let definition = machine.definition {
            order = definition.stateIDs
            let known = Set(order)
            order += funnel.reached.keys.filter { !known.contains($0) }.sorted()
        } else {
            order = funnel.reached.keys.sorted {
                let (left, right) = (funnel.reached[$0] ?? 0, funnel.reached[$1] ?? 0)
                return left != right ? left > right : $0 < $1
            }
        }
        return funnel.steps(along: order).filter { $0.reached > 0 }
    }

    private static func section(_ machine: Machine, filter: FleetQueries.SessionFilter) -> String {
        let funnel = machine.funnel
        var html = "<article class=\"rw-machine\" data-machine=\"\(escaped(machine.name))\" "
        html += "data-sessions=\"\(machine.sessions)\" data-funnel-sessions=\"\(funnel.sessions)\">"
        html += "<h3>\(escaped(machine.name))</h3><p class=\"rw-meta\">\(machine.sessions) sessions"
        if machine.definition == nil { html += "; no definition received, steps by how many reached them" }
        html += "</p><table class=\"rw-funnel\"><thead><tr><th>step</th><th class=\"rw-n\">reached</th>"
        html += "<th class=\"rw-n\">share</th><th class=\"rw-n\">drop-off</th><th class=\"rw-n\">stopped here</th></tr>"
        html += "</thead><tbody>"
        var previous: Int?
        for step in steps(machine) {
            let share = funnel.sessions > 0 ? Double(step.reached) * 100 / Double(funnel.sessions) : 0
            let drop = previous.map { $0 - step.reached } ?? 0
            html += "<tr data-state=\"\(escaped(step.state))\" data-reached=\"\(step.reached)\" "
            html += "data-stopped=\"\(step.stopped)\" data-drop=\"\(drop)\">"
            html += "<td>\(escaped(step.state))</td><td class=\"rw-n\"><span class=\"rw-bar\" "
            html += "style=\"width:\(Int((share * 0.4).rounded()))px\"></span>\(step.reached)</td>"
            html += "<td class=\"rw-n\">\(Int(share.rounded())) %</td>"
            if drop > 0, let previous, previous > 0 {
                let percent = Double(drop) * 100 / Double(previous)
                html += "<td class=\"rw-n rw-drop\">−\(drop) (\(Int(percent.rounded())) %)</td>"
            } else {
                html += "<td class=\"rw-n rw-drop\"></td>"
            }
            if step.stopped > 0 {
                var parameters = Self.parameters(filter)
                parameters[0] = ("machine", machine.name)
                parameters[1] = ("state", step.state)
                parameters[2] = ("store", nil)
                html += "<td class=\"rw-n\"><a class=\"rw-stopped\" href=\"\(link(parameters, fragment: "sessions"))\">"
                html += "\(step.stopped)</a></td></tr>"
            } else {
                html += "<td class=\"rw-n\">0</td></tr>"
            }
            previous = step.reached
        }
        html += "</tbody></table>"
        html += FleetTrendChart(days: machine.trend, finishing: machine.finishing).html
        return html + "</article>"
    }

    private static func sessionList(_ contents: Contents) -> String {
        let filter = contents.filter
        var html = "<section class=\"rw-panel\" id=\"sessions\"><h2>Sessions</h2>"
        var shown: [String] = []
        if let machine = filter.machine { shown.append("of \(machine)") }
        if let state = filter.state { shown.append("in state \(state)") }
        if !shown.isEmpty { html += "<p class=\"rw-meta\">Sessions \(escaped(shown.joined(separator: ", "))).</p>" }
        html += "<table><thead><tr><th>session</th><th>machine</th><th>now in</th><th class=\"rw-n\">version</th>"
        html += "<th>last update</th><th>last event</th></tr></thead><tbody>"
        let atomic = Dictionary(
            contents.machines.compactMap { machine in machine.definition.map { (machine.name, atomicStates(of: $0)) } },
            uniquingKeysWith: { first, _ in first })
        var device: UUID?
        for session in contents.sessions {
            let store = session.storeID.uuidString.lowercased()
            if session.storeID != device {
                device = session.storeID
                html += "<tr class=\"rw-device\" data-device=\"\(store)\"><th colspan=\"6\">device \(store)</th></tr>"
            }
            let configuration = session.configuration ?? []
            let leaves = atomic[session.machine].map { leaves in configuration.filter { leaves.contains($0) } }
            let now = (leaves?.isEmpty == false ? leaves : nil) ?? configuration
            html += "<tr data-store=\"\(session.storeID)\" data-session=\"\(escaped(session.sessionID))\" "
            html += "data-machine=\"\(escaped(session.machine))\" data-version=\"\(session.headVersion)\">"
            let page = "/v1/stores/\(store)/sessions/\(pathEscaped(session.sessionID))/page"
            html += "<td><a href=\"\(escaped(page))\">\(escaped(session.sessionID))</a></td>"
            html += "<td>\(escaped(session.machine))</td><td>\(escaped(now.joined(separator: ", ")))</td>"
            html += "<td class=\"rw-n\">\(session.headVersion)</td>"
            html += "<td>\(escaped(time(session.lastRecordedAtMicroseconds)))</td>"
            html += "<td class=\"rw-event\">\(escaped(session.lastEvent))"
            if !now.isEmpty { html += " → \(escaped(now.joined(separator: ", ")))" }
            html += "</td></tr>"
        }
        html += "</tbody></table>"
        if contents.sessions.isEmpty { html += "<p class=\"rw-meta\">No session matches.</p>" }
        if let next = contents.next {
            let parameters = Self.parameters(filter) + [("limit", String(filter.limit)), ("cursor", next.text)]
            html += "<p><a rel=\"next\" href=\"\(link(parameters))\">Next page</a></p>"
        }
        return html + "</section>"
    }

    /// The ids of `definition`'s states without children (what a configuration shows as where a
    /// session is).
    static func atomicStates(of definition: MachineDefinition) -> Set<String> {
        var ids: Set<String> = []
        func walk(_ states: [StateDefinition]) {
            for state in states {
                if state.children.isEmpty, state.kind != .history { ids.insert(state.id) }
                walk(state.children)
            }
        }
        walk(definition.states)
        return ids
    }
}

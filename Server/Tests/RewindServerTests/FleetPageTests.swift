import Foundation
import Rewind
import RewindExamples
import RewindServer
import Testing

/// The fleet page shows the numbers of the JSON endpoints (machines, funnels, the session list
/// page by page), is self-contained, escapes what it shows, and takes the read key as a bearer
/// token or a browser's Basic password.
@Suite(.timeLimit(.minutes(10))) struct FleetPageTests {
    /// The capture groups of every match of `pattern` in `text`.
    static func captures(_ pattern: String, in text: String) throws -> [[String]] {
        let expression = try NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators])
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).map { match in
            (1..<match.numberOfRanges).map { index in
                Range(match.range(at: index), in: text).map { unescaped(String(text[$0])) } ?? ""
            }
        }
    }

    static func unescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The page's funnels, by machine: (sessions of the machine, the funnel).
    static func funnels(in page: String) throws -> [String: (sessions: Int, funnel: FunnelBody)] {
        var result: [String: (sessions: Int, funnel: FunnelBody)] = [:]
        let articles = try captures(
            #"<article class="rw-machine" data-machine="([^"]*)" data-sessions="(\d+)" data-funnel-sessions="(\d+)">(.*?)</article>"#,
            in: page)
        for article in articles {
            var funnel = FunnelBody(machine: article[0], sessions: Int(article[2]) ?? -1, reached: [:], stoppedAt: [:])
            for row in try captures(
                #"<tr data-state="([^"]*)" data-reached="(\d+)" data-stopped="(\d+)""#, in: article[3])
            {
                funnel.reached[row[0]] = Int(row[1])
                if let stopped = Int(row[2]), stopped > 0 { funnel.stoppedAt[row[0]] = stopped }
            }
            result[article[0]] = (Int(article[1]) ?? -1, funnel)
        }
        return result
    }

    /// The page's session rows: store and session id.
    static func sessions(in page: String) throws -> [String] {
        try captures(#"<tr data-store="([^"]*)" data-session="([^"]*)""#, in: page).map {
            "\($0[0].lowercased())/\($0[1])"
        }
    }

    @Test func thePageShowsTheNumbersOfTheJSONEndpoints() async throws {
        let server = try await TestServer.start()
        let devices = try await ProjectionRoutesTests.fleet(server, devices: 2, records: 60)
        let hostile = try Device()
        try await hostile.runOnboarding("<b>bold</b> & \"quoted\"", events: 2)
        try await server.uploadAll(hostile)
        try await server.waitUntilCaughtUp()

        let response = try await server.get("/v1/pages/fleet?limit=10")
        #expect(response.headers["content-type"]?.hasPrefix("text/html") == true)
        let page = response.text
        #expect(!page.contains("://"), "an external URL")
        #expect(!page.contains("<script"))

        let funnels = try Self.funnels(in: page)
        #expect(Set(funnels.keys) == ["onboarding", "kanji"])
        let all = try await ProjectionRoutesTests.allSessions(server)
        for (machine, shown) in funnels {
            let json = try await server.get("/v1/machines/\(machine)/funnel").json(FunnelBody.self)
            var expected = json
            expected.stoppedAt = json.stoppedAt.filter { $0.value > 0 }
            #expect(shown.funnel == expected, "\(machine)")
            #expect(shown.sessions == all.filter { $0.machine == machine }.count)
        }
        _ = devices

        // The session list, page by page through the page's own links, is the JSON list's.
        var shownSessions = try Self.sessions(in: page)
        #expect(shownSessions.count == 10)
        var pages = [page]
        var next = try Self.captures(#"<a rel="next" href="([^"]*)">"#, in: page).first?.first
        while let link = next {
            let following = try await server.get(link).text
            pages.append(following)
            shownSessions += try Self.sessions(in: following)
            next = try Self.captures(#"<a rel="next" href="([^"]*)">"#, in: following).first?.first
        }
        #expect(shownSessions == all.map { "\($0.storeID.uuidString.lowercased())/\($0.sessionID)" })
        #expect(pages.count == (all.count + 9) / 10)
        // What the page shows is escaped.
        #expect(!pages.contains { $0.contains("<b>bold</b>") })
        #expect(pages.contains { $0.contains("&lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot;") })
        try await server.stop()
    }

    /// The attribute `name` of each element of `page` that carries `marker`, in page order.
    static func values(_ name: String, of marker: String, in page: String) throws -> [String] {
        try captures("\(marker)[^>]*? \(name)=\"([^\"]*)\"", in: page).map { $0[0] }
    }

    /// A link's path as a browser requests it (without its fragment).
    static func path(_ link: String) -> String {
        String(link.prefix { $0 != "#" })
    }

    @Test func theOverviewTheFunnelsInFlowOrderTheTrendAndTheSessionsInNaturalOrder() async throws {
        let server = try await TestServer.start()
        let devices = try await ProjectionRoutesTests.fleet(server, devices: 2, records: 60)
        let named = try Device()
        try await named.runOnboarding(["n-102", "n-12", "n-2"])
        try await named.runOnboarding("n-7", events: 1)
        try await server.uploadAll(named)
        try await server.waitUntilCaughtUp()
        let all = try await ProjectionRoutesTests.allSessions(server)

        let page = try await server.get("/v1/pages/fleet?limit=1000").text
        // The totals.
        func total(_ name: String, in page: String) throws -> String? {
            try Self.captures(#"<div data-total="\#(name)" data-value="([^"]*)">"#, in: page).first?.first
        }
        let recordCount = try (devices + [named]).reduce(0) { $0 + (try $1.records().count) }
        #expect(try total("devices", in: page) == "3")
        #expect(try total("sessions", in: page) == "\(all.count)")
        #expect(try total("records", in: page) == "\(recordCount)")
        #expect(try total("projection-lag", in: page) == "0")
        #expect(try total("last-upload", in: page)?.isEmpty == false)

        // Onboarding's funnel follows its flow (initial, greeting, login, home), each step with
        // its drop-off from the one before.
        let onboarding = try #require(
            try Self.captures(#"<article class="rw-machine" data-machine="onboarding"(.*?)</article>"#, in: page).first?
                .first)
        let rows = try Self.captures(
            #"<tr data-state="([^"]*)" data-reached="(\d+)" data-stopped="(\d+)" data-drop="(-?\d+)">"#, in: onboarding)
        let order = ExampleMachines.Onboarding.definition.stateIDs
        #expect(rows.map { $0[0] } == order.filter { state in rows.contains { $0[0] == state } })
        #expect(rows.count >= 3)
        for (index, row) in rows.enumerated() {
            let expected = index == 0 ? 0 : (Int(rows[index - 1][1]) ?? 0) - (Int(row[1]) ?? 0)
            #expect(Int(row[3]) == expected, "drop-off at \(row[0])")
        }
        // A "stopped here" count links to exactly the sessions that stopped there.
        let stoppedLinks = try Self.captures(
            #"<tr data-state="([^"]*)"[^>]*data-stopped="(\d+)"[^>]*>(?:(?!</tr>).)*?<a class="rw-stopped" href="([^"]*)">"#,
            in: onboarding)
        #expect(!stoppedLinks.isEmpty)
        for link in stoppedLinks {
            let listed = try await server.get(Self.path(link[2])).text
            let sessions = try Self.sessions(in: listed)
            #expect(sessions.count == Int(link[1]), "stopped at \(link[0])")
            let expected = all.filter { $0.machine == "onboarding" && ($0.configuration ?? []).contains(link[0]) }
            #expect(Set(sessions) == Set(expected.map { "\($0.storeID.uuidString.lowercased())/\($0.sessionID)" }))
        }

        // The trend: every session started on some day; finished ones are in onboarding's dead end (home).
        let days = try Self.captures(
            #"<g class="rw-day" data-day="([^"]*)" data-started="(\d+)" data-finished="(\d+)">"#, in: onboarding)
        let onboardingSessions = all.filter { $0.machine == "onboarding" }
        #expect(days.reduce(0) { $0 + (Int($1[1]) ?? 0) } == onboardingSessions.count)
        #expect(
            days.reduce(0) { $0 + (Int($1[2]) ?? 0) }
                == onboardingSessions.filter { ($0.configuration ?? []).contains("home") }.count)
        #expect(onboarding.contains("<svg class=\"rw-trend\""))

        // Sessions: in natural order within their device, the device said once per group, the last
        // event with where it led, each linking to its session page.
        let namedRows = try Self.sessions(in: page).filter { $0.hasPrefix(named.storeID.uuidString.lowercased()) }
        #expect(namedRows.map { String($0.split(separator: "/").last ?? "") } == ["n-2", "n-7", "n-12", "n-102"])
        let groups = try Self.values("data-device", of: "<tr class=\"rw-device\"", in: page)
        #expect(groups.count == Set(all.map(\.storeID)).count)
        #expect(Set(groups).count == groups.count)
        #expect(page.contains("loggedIn → home"))
        let link = "/v1/stores/\(named.storeID.uuidString.lowercased())/sessions/n-12/page"
        #expect(page.contains("<a href=\"\(link)\">n-12</a>"))
        let basic = Data("anyone:\(server.app.readKey.token)".utf8).base64EncodedString()
        let sessionPage = try await server.request("GET", link, headers: [("Authorization", "Basic \(basic)")])
        #expect(sessionPage.status == 200)
        #expect(sessionPage.text.contains("n-12"))
        let asked = try await server.request("GET", link)
        #expect(asked.status == 401)
        #expect(asked.headers["www-authenticate"]?.hasPrefix("Basic ") == true)
        try await server.stop()
    }

    @Test func theFiltersAreAFormAndOneRangeAppliesToEveryNumber() async throws {
        let server = try await TestServer.start()
        _ = try await ProjectionRoutesTests.fleet(server, devices: 2, records: 60)
        let all = try await ProjectionRoutesTests.allSessions(server)

        // The form, and its blank fields meaning "any".
        let blank = try await server.get("/v1/pages/fleet?machine=&from=&to=&state=&limit=1000")
        #expect(blank.status == 200)
        #expect(blank.text.contains("<form method=\"get\" action=\"/v1/pages/fleet\">"))
        #expect(try Self.values("value", of: "<option", in: blank.text) == ["", "kanji", "onboarding"])
        #expect(try Self.sessions(in: blank.text).count == all.count)

        // One day (the day of the latest session, as a form's date field sends it): the machine's
        // count, its funnel, its trend and the session list all count the same sessions.
        let latest = try #require(all.map(\.lastRecordedAtMicroseconds).max())
        let dayStart = latest - latest % 86_400_000_000
        let day = ISO8601DateFormatter.string(
            from: Date(timeIntervalSince1970: Double(dayStart) / 1_000_000), timeZone: TimeZone(identifier: "UTC")!,
            formatOptions: [.withFullDate])
        let page = try await server.get("/v1/pages/fleet?machine=kanji&from=\(day)&to=\(day)&limit=1000").text
        let inDay = all.filter {
            $0.machine == "kanji" && $0.lastRecordedAtMicroseconds >= dayStart
                && $0.lastRecordedAtMicroseconds < dayStart + 86_400_000_000
        }
        let funnels = try Self.funnels(in: page)
        #expect(Set(funnels.keys) == ["kanji"])
        #expect(funnels["kanji"]?.sessions == inDay.count)
        #expect(funnels["kanji"]?.funnel.sessions == inDay.count)
        let started = try Self.values("data-started", of: "<g class=\"rw-day\"", in: page).compactMap { Int($0) }
        #expect(started.reduce(0, +) == inDay.count)
        #expect(try Self.sessions(in: page).count == inDay.count)
        #expect(try Self.values("value", of: "<input type=\"date\" name=\"from\"", in: page) == [day])
        #expect(try Self.values("value", of: "<input type=\"date\" name=\"to\"", in: page) == [day])

        // A range with nothing in it.
        let empty = try await server.get("/v1/pages/fleet?from=2001-01-01&to=2001-01-02").text
        #expect(empty.contains("No session has been uploaded yet in this range."))
        #expect(try Self.captures(#"<div data-total="sessions" data-value="(\d+)">"#, in: empty).first?.first == "0")
        // A day that does not exist is a typed 400 naming the parameter.
        let bad = try await server.request("GET", "/v1/pages/fleet?from=2026-02-30", key: server.app.readKey)
        #expect(bad.status == 400)
        #expect(try bad.object()["parameter"] as? String == "from")
        try await server.stop()
    }

    @Test func aBrowserGivesTheReadKeyAsItsBasicPassword() async throws {
        let server = try await TestServer.start()
        let asked = try await server.request("GET", "/v1/pages/fleet")
        #expect(asked.status == 401)
        #expect(asked.headers["www-authenticate"]?.hasPrefix("Basic ") == true)
        #expect(asked.headers["content-type"]?.hasPrefix("text/html") == true)
        let basic = Data("anyone:\(server.app.readKey.token)".utf8).base64EncodedString()
        let page = try await server.request("GET", "/v1/pages/fleet", headers: [("Authorization", "Basic \(basic)")])
        #expect(page.status == 200)
        #expect(page.text.contains("No session has been uploaded yet."))
        let wrong = Data("anyone:\(server.app.ingestKey.token)".utf8).base64EncodedString()
        #expect(
            try await server.request("GET", "/v1/pages/fleet", headers: [("Authorization", "Basic \(wrong)")]).status
                == 403)
        let garbage = try await server.request("GET", "/v1/pages/fleet", headers: [("Authorization", "Basic !!!")])
        #expect(garbage.status == 401)
        // A bad parameter is the same typed 400 as the JSON list's.
        let bad = try await server.request("GET", "/v1/pages/fleet?cursor=zz", key: server.app.readKey)
        #expect(bad.status == 400)
        #expect(try bad.object()["parameter"] as? String == "cursor")
        try await server.stop()
    }
}

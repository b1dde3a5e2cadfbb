import Foundation
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
                #"<tr data-state="([^"]*)" data-reached="(\d+)" data-stopped="(\d+)">"#, in: article[3])
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

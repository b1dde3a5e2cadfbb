import Foundation
import RewindServer
import Testing

/// The fleet page in headless Chromium (chromedriver; `make test` installs both), at a desktop
/// and a phone width: nothing is wider than the screen, the machines sit side by side on the
/// desktop and one under the other on the phone, the trend chart is drawn, the filter form
/// applies, and a session's link opens its page with the key the browser already sends.
@Suite(.timeLimit(.minutes(10)), .serialized) struct FleetPageBrowserTests {
    /// Waits for `condition` after a click that navigates: a wait begun in the page being left
    /// ends with it (a script timeout), so it is asked again in the new page, up to 5 times.
    static func wait(_ browser: WebDriver, until condition: String) async throws {
        for attempt in 1...5 {
            do {
                return try await browser.wait(until: condition)
            } catch  where attempt < 5 {
                continue
            }
        }
    }

    @Test(arguments: [(1280, 800), (390, 844)])
    func thePageWorksInABrowserAtDesktopAndPhoneWidths(width: Int, height: Int) async throws {
        let server = try await TestServer.start()
        _ = try await ProjectionRoutesTests.fleet(server, devices: 2, records: 60)
        let browser = try await WebDriver.start(width: width, height: height, loopback: true)
        do {
            let basic = Data("reader:\(server.app.readKey.token)".utf8).base64EncodedString()
            try await browser.sendHeaders(["Authorization": "Basic \(basic)"])
            try await browser.open(URL(string: "http://127.0.0.1:\(server.port)/v1/pages/fleet?limit=20")!)
            try await browser.wait(until: "document.querySelector('#sessions tr[data-session]')")

            let overflow = try await browser.execute(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
            #expect(
                (overflow as? Int) == 0,
                "the page is wider than the \(width) px screen by \(String(describing: overflow)) px")
            let tops = try #require(
                try await browser.execute(
                    "return Array.from(document.querySelectorAll('.rw-machine')).map(e => Math.round(e.getBoundingClientRect().top))"
                ) as? [Int])
            #expect(tops.count == 2)
            if width >= 800 {
                #expect(Set(tops).count == 1, "side by side on a desktop: \(tops)")
            } else {
                #expect(Set(tops).count == 2, "one under the other on a phone: \(tops)")
            }
            // Every machine's card holds its funnel and chart without overflowing.
            let cardOverflow = try await browser.execute(
                "return Array.from(document.querySelectorAll('.rw-machine')).map(e => e.scrollWidth - e.clientWidth)")
            #expect((cardOverflow as? [Int])?.allSatisfy { $0 <= 0 } == true, "\(String(describing: cardOverflow))")
            let chart = try await browser.execute(
                "return Math.round(document.querySelector('svg.rw-trend').getBoundingClientRect().width)")
            #expect(((chart as? Int) ?? 0) > 100)
            let drawn = try await browser.execute(
                "return document.querySelectorAll('svg.rw-trend rect.rw-started').length")
            #expect(((drawn as? Int) ?? 0) >= 2)

            // The form: one machine.
            try await browser.execute("document.querySelector('select[name=machine]').value = 'kanji'")
            try await browser.click("#filters button[type=submit]")
            try await Self.wait(
                browser,
                until:
                    "location.search.includes('machine=kanji') && document.querySelectorAll('.rw-machine').length === 1"
            )
            let machine = try await browser.execute("return document.querySelector('.rw-machine').dataset.machine")
            #expect(machine as? String == "kanji")
            let listed = try await browser.execute(
                "return Array.from(document.querySelectorAll('#sessions tr[data-session]')).map(r => r.dataset.machine)"
            )
            #expect((listed as? [String])?.isEmpty == false)
            #expect((listed as? [String])?.allSatisfy { $0 == "kanji" } == true)

            // A session's link opens its page on the server.
            let session = try #require(
                try await browser.execute("return document.querySelector('#sessions tr[data-session]').dataset.session")
                    as? String)
            try await browser.click("#sessions tr[data-session] a")
            try await Self.wait(
                browser, until: "location.pathname.endsWith('/page') && document.readyState === 'complete'")
            let text = try await browser.execute("return document.title + ' ' + document.body.innerText")
            #expect((text as? String)?.contains(session) == true)
        } catch {
            await browser.quit()
            try await server.stop()
            throw error
        }
        await browser.quit()
        try await server.stop()
    }
}

import Foundation
import Rewind
import RewindTestSupport
import Testing

/// `rewind view SESSION` pages of the demo's store in headless Chromium (networking disabled):
/// what they show after key presses and clicks is what `rewind state --at V --json` says.
extension ViewerBrowserTests {
    @Suite struct SessionPageBrowserTests {
        /// The demo's longest session's page, written by `rewind view`.
        static func page(_ demo: DemoPages, arguments: [String] = [], name: String) async throws -> (URL, SessionInfo) {
            let info = try #require(try demo.sessions().first { $0.machine == "kanji" } ?? demo.sessions().first)
            let url = demo.file(name)
            try await demo.run(["view", info.session.rawValue, "-o", url.path] + arguments)
            return (url, info)
        }

        @Test func keysAndButtonsShowTheStateRewindStateShows() async throws {
            let demo = try await DemoPages.shared.value
            let (url, info) = try await Self.page(demo, name: "keys.html")
            let session = info.session.rawValue
            let driver = try await WebDriver.start()
            do {
                try await driver.open(url)
                try await driver.wait(until: "document.documentElement.getAttribute('data-ready') === '1'")
                // No fragment: the page opens at the head.
                try await expectPage(
                    driver, at: info.headVersion, equals: try await demo.state(session, at: info.headVersion))
                try await driver.press(WebDriver.Key.home)
                try await expectPage(driver, at: 1, equals: try await demo.state(session, at: 1))
                try await driver.press(WebDriver.Key.right)
                try await driver.press(WebDriver.Key.right)
                try await expectPage(driver, at: 3, equals: try await demo.state(session, at: 3))
                try await driver.click("#rw-next")
                try await expectPage(driver, at: 4, equals: try await demo.state(session, at: 4))
                try await driver.press(WebDriver.Key.left)
                try await expectPage(driver, at: 3, equals: try await demo.state(session, at: 3))
                try await driver.press(WebDriver.Key.end)
                try await expectPage(
                    driver, at: info.headVersion, equals: try await demo.state(session, at: info.headVersion))
                // A click on the event list moves there.
                let row = info.headVersion - 2
                try await driver.click("#rw-log li[data-v='\(row)']")
                try await expectPage(driver, at: row, equals: try await demo.state(session, at: row))
                // The URL follows the cursor.
                try await driver.wait(until: "location.hash === '#v=\(row)'")
                try await expectNoRequests(driver)
            } catch {
                await driver.quit()
                throw error
            }
            await driver.quit()
        }

        @Test func aTrimmedSessionsPageBeginsAtItsBaseWithItsVersionsNumbers() async throws {
            let demo = try await DemoPages.make()  // its own store: the trim changes it
            let info = try #require(try demo.sessions().max { $0.headVersion < $1.headVersion })
            try #require(info.headVersion >= 5)
            let session = info.session.rawValue
            let head = info.headVersion
            let base = head - 2
            try await demo.run(["trim", session, "--before", String(base)])
            let url = demo.file("trimmed.html")
            try await demo.run(["view", session, "-o", url.path])
            let driver = try await WebDriver.start()
            do {
                try await driver.open(url)
                try await driver.wait(until: "document.documentElement.getAttribute('data-ready') === '1'")
                try await expectPage(driver, at: head, equals: try await demo.state(session, at: head))
                let title =
                    try await driver.execute("return document.querySelector('#rw-title').textContent;") as? String
                #expect(title?.contains("history begins at version \(base)") == true, "\(title ?? "")")
                let position =
                    try await driver.execute("return document.querySelector('#rw-pos').textContent;") as? String
                #expect(position == "\(head) / \(head)")
                // The log lists the versions by their numbers, from the base.
                let rows =
                    try await driver.execute(
                        "return Array.from(document.querySelectorAll('#rw-log li[data-v]')).map(function (li) { return +li.getAttribute('data-v'); });"
                    )
                    as? [Int]
                #expect(rows == Array(Int(base)...Int(head)), "\(rows ?? [])")
                // Home is the base; nothing lies before it.
                try await driver.press(WebDriver.Key.home)
                try await expectPage(driver, at: base, equals: try await demo.state(session, at: base))
                try await driver.press(WebDriver.Key.left)
                try await driver.press(WebDriver.Key.right)
                try await expectPage(driver, at: base + 1, equals: try await demo.state(session, at: base + 1))
                try await driver.wait(until: "location.hash === '#v=\(base + 1)'")
                #expect(try await driver.execute("return rewindViewer.version();") as? Int == Int(base + 1))
                // The download is offered (the archive in format version 3, with its base).
                #expect(
                    try await driver.execute("return document.querySelector('#rw-download').hidden;") as? Bool == false)
                let text = try #require(
                    try await driver.execute(
                        "return document.querySelector('#rw-archive').textContent.replace(/\\u0001/g, '<');") as? String
                )
                #expect(try SessionArchive.validate(Data(text.utf8)) == info.session)
                #expect(text.contains(#""formatVersion":\#(SessionArchive.trimmedFormatVersion)"#))
                try await expectNoRequests(driver)

                // The machine page lists the session at its head version and opens a deep link to
                // a version by its number.
                let machine = demo.file("trimmed-machine.html")
                try await demo.run(["view", "--machine", info.machine, "-o", machine.path])
                try await driver.open(machine)
                try await driver.wait(
                    until: "document.querySelector(\"#rw-all a[data-session='\(session)']\") !== null")
                let listed =
                    try await driver.execute(
                        "return document.querySelector(\"#rw-all a[data-session='\(session)']\").closest('tr').children[1].textContent;"
                    )
                    as? String
                #expect(listed == String(head))
                var components = URLComponents(url: machine, resolvingAgainstBaseURL: false)
                components?.fragment = "session=\(session)&v=\(base + 1)"
                try await driver.open(try #require(components?.url))
                try await expectPage(driver, at: base + 1, equals: try await demo.state(session, at: base + 1))
                try await expectNoRequests(driver)
            } catch {
                await driver.quit()
                throw error
            }
            await driver.quit()
        }

        @Test func aDeepLinkLandsOnItsVersion() async throws {
            let demo = try await DemoPages.shared.value
            let (url, info) = try await Self.page(demo, name: "deep.html")
            let session = info.session.rawValue
            let driver = try await WebDriver.start()
            do {
                var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
                components?.fragment = "v=2"
                try await driver.open(try #require(components?.url))
                try await expectPage(driver, at: 2, equals: try await demo.state(session, at: 2))
                try await driver.execute("location.hash = 'v=5';")
                try await expectPage(driver, at: 5, equals: try await demo.state(session, at: 5))
                try await expectNoRequests(driver)
            } catch {
                await driver.quit()
                throw error
            }
            await driver.quit()
        }

        @Test func slashSearchesEventNamesAndEnterJumpsToTheNextMatch() async throws {
            let demo = try await DemoPages.shared.value
            let (url, info) = try await Self.page(demo, name: "search.html")
            let session = info.session.rawValue
            // The event of version 3, and the first version after 1 with that event.
            let third = try await demo.state(session, at: 3)
            let event = try #require(third.event)
            var expected: UInt64 = 0
            for version in 2...info.headVersion where try await demo.state(session, at: version).event == event {
                expected = version
                break
            }
            let driver = try await WebDriver.start()
            do {
                try await driver.open(url)
                try await driver.wait(until: "document.documentElement.getAttribute('data-ready') === '1'")
                try await driver.press(WebDriver.Key.home)
                try await driver.wait(until: "document.documentElement.getAttribute('data-version') === '1'")
                try await driver.press("/")
                try await driver.wait(until: "document.activeElement && document.activeElement.id === 'rw-search'")
                try await driver.type(event, into: "#rw-search")
                try await driver.wait(until: "/match/.test(document.querySelector('#rw-count').textContent)")
                try await driver.press(WebDriver.Key.enter)
                try await expectPage(driver, at: expected, equals: try await demo.state(session, at: expected))
                // Every row the filtered list shows has the event searched for.
                let rows =
                    try await driver.execute(
                        "return Array.from(document.querySelectorAll('#rw-log li[data-v] .rw-ev')).map(function (n) { return n.textContent; });"
                    ) as? [String]
                #expect(rows?.isEmpty == false)
                #expect(rows?.allSatisfy { $0.lowercased().contains(event.lowercased()) } == true, "\(rows ?? [])")
            } catch {
                await driver.quit()
                throw error
            }
            await driver.quit()
        }

        @Test func screenshotsAtDesktopAndPhoneWidthsInLightAndDark() async throws {
            let demo = try await DemoPages.shared.value
            let (url, _) = try await Self.page(demo, name: "shots.html")
            for (width, height, name) in [(1280, 800, "desktop"), (390, 844, "phone")] {
                let driver = try await WebDriver.start(width: width, height: height)
                do {
                    try await driver.open(url)
                    try await driver.wait(until: "document.documentElement.getAttribute('data-ready') === '1'")
                    let viewport = try await driver.execute("return window.innerWidth;") as? Int
                    #expect(viewport == width, "the window is \(viewport ?? 0) px wide")
                    // Nothing is wider than the window (no sideways scrolling).
                    let overflow =
                        try await driver.execute("return document.documentElement.scrollWidth - window.innerWidth;")
                        as? Int
                    #expect(overflow == 0, "the page is \(overflow ?? -1) px wider than a \(width) px window")
                    try await driver.press(WebDriver.Key.left)
                    try await driver.wait(until: "document.documentElement.getAttribute('data-version') !== null")
                    _ = try Screenshots.write(try await driver.screenshot(), named: "session-\(name)-light.png")
                    try await driver.click("#rw-theme")
                    try await driver.wait(until: "document.documentElement.getAttribute('data-theme') === 'dark'")
                    _ = try Screenshots.write(try await driver.screenshot(), named: "session-\(name)-dark.png")
                    try await expectNoRequests(driver)
                } catch {
                    await driver.quit()
                    throw error
                }
                await driver.quit()
            }
        }
    }
}

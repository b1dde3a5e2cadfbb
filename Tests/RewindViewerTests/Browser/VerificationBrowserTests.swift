import Foundation
import Rewind
import RewindTestSupport
import Testing

/// `rewind view SESSION --verify [--definition FILE]`: the page marks the first divergence.
extension ViewerBrowserTests {
    @Suite struct VerificationBrowserTests {
        @Test func theFirstDivergenceIsMarkedAndReachable() async throws {
            let demo = try await DemoPages.shared.value
            let info = try #require(try demo.sessions().first { $0.machine == "onboarding" } ?? demo.sessions().first)
            let session = info.session.rawValue
            // The machine's definition with its first event renamed: replaying diverges there.
            let document = try await demo.run(["graph", info.machine, "--format", "json"])
            let point = try await demo.state(session, at: 2)
            let event = try #require(point.event)
            let changed = document.replacingOccurrences(of: "\"\(event)\"", with: "\"\(event)-renamed\"")
            try #require(changed != document, "the definition names \(event)")
            let definition = demo.file("changed.json")
            try Data(changed.utf8).write(to: definition)
            let verified = demo.file("verified.html")
            try await demo.run(["view", session, "-o", verified.path, "--verify"])
            let diverged = demo.file("diverged.html")
            try await demo.run(["view", session, "-o", diverged.path, "--verify", "--definition", definition.path])

            let driver = try await WebDriver.start()
            do {
                try await driver.open(verified)
                try await driver.wait(until: "/Verified/.test(document.querySelector('#rw-verify').textContent)")
                try await driver.open(diverged)
                try await driver.wait(
                    until: "/Diverges at version/.test(document.querySelector('#rw-verify').textContent)")
                try await driver.click("#rw-go-divergence")
                let banner =
                    try await driver.execute("return document.querySelector('#rw-verify').textContent;") as? String
                let version = try #require(
                    banner.flatMap { text in
                        text.split(separator: " ").dropFirst(3).first.flatMap {
                            UInt64($0.trimmingCharacters(in: .punctuationCharacters))
                        }
                    })
                #expect(version == 2, "\(banner ?? "")")
                try await expectPage(driver, at: version, equals: try await demo.state(session, at: version))
                try await driver.wait(until: "document.querySelector('#rw-log li.rw-diverged') !== null")
                try await expectNoRequests(driver)
            } catch {
                await driver.quit()
                throw error
            }
            await driver.quit()
        }
    }
}

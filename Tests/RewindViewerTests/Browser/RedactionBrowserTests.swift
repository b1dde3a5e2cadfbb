import Foundation
import Rewind
import RewindTestSupport
import Testing

@testable import RewindViewer

/// `--redact`: the page lists what was redacted and shows placeholders; the embedded archive
/// downloads as a file `rewind import` takes.
extension ViewerBrowserTests {
    @Suite struct RedactionBrowserTests {
        @Test func aRedactedPageShowsPlaceholdersAndItsArchiveImports() async throws {
            let demo = try await DemoPages.shared.value
            let info = try #require(try demo.sessions().first { $0.machine == "kanji" })
            let session = info.session.rawValue
            let url = demo.file("redacted.html")
            try await demo.run(["view", session, "-o", url.path, "--redact", "data.*", "payload.data"])
            let page = try Data(contentsOf: url)
            #expect(String(decoding: page, as: UTF8.self).contains("‹redacted›"))

            let driver = try await WebDriver.start()
            do {
                try await driver.open(url)
                try await driver.wait(until: "document.documentElement.getAttribute('data-ready') === '1'")
                let notice =
                    try await driver.execute("return document.querySelector('#rw-redaction').textContent;") as? String
                #expect(notice?.contains("data.*") == true && notice?.contains("Redacted") == true, "\(notice ?? "")")
                // Every value of the state data shown is the placeholder.
                let data =
                    try await driver.execute(
                        "return document.querySelector('#rw-state-data').getAttribute('data-value');") as? String
                let shown = try JSONValue(jsonBytes: Array((data ?? "").utf8))
                if case .object(let members) = shown {
                    #expect(members.values.allSatisfy { $0 == RedactionRule.placeholder }, "\(shown)")
                }
                // The archive the download button saves: the page's own text, as the button makes it.
                let text = try #require(
                    try await driver.execute(
                        "return document.querySelector('#rw-archive').textContent.replace(/\\u0001/g, '<');") as? String
                )
                let archive = Data(text.utf8)
                try SessionArchive.validate(archive)
                let fixture = try EngineFixture()
                defer { fixture.remove() }
                let engine = try fixture.open(registering: [])
                defer { engine.close() }
                let imported = try await engine.importSession(archive)
                #expect(imported.headVersion == info.headVersion)
                var cursor = try engine.replayCursor(for: imported.session)
                while let point = try cursor.stepForward() {
                    for value in point.stateData.values { #expect(value == RedactionRule.placeholder) }
                }
                try await driver.click("#rw-download")
                try await expectNoRequests(driver)
            } catch {
                await driver.quit()
                throw error
            }
            await driver.quit()
        }
    }
}

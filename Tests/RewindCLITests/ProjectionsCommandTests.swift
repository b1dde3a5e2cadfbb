import Foundation
import Testing

/// `rewind projections [list|rebuild NAME]`.
struct ProjectionsCommandTests {
    @Test func theBuiltInProjectionsAreUpToDateAfterTheDemoAndRebuildToTheHead() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let rows = try await demo.tool.json([CommandOutputs.ProjectionRow].self, ["projections"])
        #expect(Set(rows.map(\.name)) == ["rewind.screen-flows", "rewind.navigation"])
        for row in rows {
            #expect(row.head == demo.summary.totalRecords, "\(row.name)")
            #expect(row.checkpoint == row.head, "\(row.name)")
            #expect(row.failure == nil, "\(row.name)")
            #expect(row.status == "up to date", "--json carries the STATUS column: \(row.name)")
        }
        let listed = try await demo.tool.json([CommandOutputs.ProjectionRow].self, ["projections", "list"])
        #expect(listed.map(\.name) == rows.map(\.name))

        for row in rows {
            let rebuilt = try await demo.tool.json(
                CommandOutputs.ProjectionRow.self, ["projections", "rebuild", row.name])
            #expect(rebuilt.name == row.name)
            #expect(rebuilt.checkpoint == demo.summary.totalRecords)
            #expect(rebuilt.failure == nil)
            #expect((rebuilt.seconds ?? -1) >= 0, "rebuild --json carries the time taken")
            let text = try await demo.tool.text(["projections", "rebuild", row.name])
            #expect(text.contains("rebuilt \(row.name) over \(demo.summary.totalRecords) records"))
        }
        let table = try await demo.tool.text(["projections"])
        #expect(table.split(separator: "\n").count == 1 + rows.count)
        #expect(table.contains("up to date"))
    }

    @Test func rebuildingAnUnknownProjectionIsAOneLineError() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        expectOneLineError(try await demo.tool.run(["projections", "rebuild", "nothing"]), containing: ["nothing"])
        // A name without its namespace lists the valid names.
        expectOneLineError(
            try await demo.tool.run(["projections", "rebuild", "screen-flows"]),
            containing: ["unknown projection 'screen-flows'", "rewind.screen-flows", "rewind.navigation"])
    }
}

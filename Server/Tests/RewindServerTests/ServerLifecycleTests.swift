import Foundation
import PostgresNIO
import RewindServer
import Testing

/// Health, migrations at start, restarts, shutdown.
@Suite(.timeLimit(.minutes(10))) struct ServerLifecycleTests {
    @Test func healthAnswersWithTheSchemaVersion() async throws {
        let server = try await TestServer.start()
        let response = try await server.request("GET", "/health")
        #expect(response.status == 200)
        #expect(try response.object()["status"] as? String == "ok")
        #expect(try response.object()["schemaVersion"] as? Int == Migrations.all.last?.version)
        try await server.stop()
    }

    @Test func migrationsApplyOnceAcrossRestarts() async throws {
        let database = try await TestDatabase.make()
        let first = try await TestServer.start(database: database)
        let device = try Device()
        try await device.runOnboarding(["kept"])
        #expect(try await first.upload(try device.batch(), store: device.storeID).status == 200)
        try await first.stop()

        // The same database again: nothing to migrate, nothing lost, the old keys still work.
        let second = try await TestServer.start(database: database)
        #expect(try await second.position(store: device.storeID, key: first.app.readKey) == 5)
        #expect(try await database.count("schema_migrations") == Migrations.all.count)
        let again = try await database.withClient { client in try await Migrations.apply(to: client, logger: testLogger)
        }
        #expect(again.isEmpty)
        // Several servers migrating a fresh database at once take turns: each migration applies once.
        let fresh = try await TestDatabase.make()
        let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<3 {
                group.addTask { try await fresh.withClient { try await Migrations.apply(to: $0, logger: testLogger) } }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(applied == Migrations.all.map(\.version))
        try await second.stop()
    }

    @Test func aDatabaseMigratedByANewerServerIsRefused() async throws {
        let database = try await TestDatabase.make()
        try await database.withClient { client in
            try await Migrations.apply(to: client, logger: testLogger)
            try await client.query("INSERT INTO schema_migrations (version, name) VALUES (999, 'from the future')")
        }
        await #expect(throws: Migrations.NewerSchemaError.self) {
            try await database.withClient { try await Migrations.apply(to: $0, logger: testLogger) }
        }
    }

    @Test func databaseURLsParse() throws {
        let tcp = try DatabaseURL("postgres://rewind:s%40cret@db.example:6543/fleet")
        #expect(tcp.host == "db.example")
        #expect(tcp.port == 6543)
        #expect(tcp.username == "rewind")
        #expect(tcp.password == "s@cret")
        #expect(tcp.database == "fleet")
        #expect(!tcp.description.contains("cret"))
        let socket = try DatabaseURL("postgresql://postgres@/fleet?host=/var/run/postgresql")
        #expect(socket.unixSocketPath == "/var/run/postgresql/.s.PGSQL.5432")
        for bad in ["mysql://u@h/d", "postgres://h/d", "postgres://u@h/", "not a url"] {
            #expect(throws: DatabaseURL.ParseError.self, "\(bad)") { try DatabaseURL(bad) }
        }
    }
}

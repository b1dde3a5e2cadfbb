import Crypto
import Foundation
import PostgresNIO
import Rewind
import RewindServer
import Testing

/// Ingestion keys upload, read keys read, and one app never sees or changes another's stores.
@Suite(.timeLimit(.minutes(10))) struct KeyTests {
    @Test func withoutAValidKeyEveryEndpointIs401() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["k"])
        let body = try device.batch().encoded()
        let path = "/v1/stores/\(device.storeID)/records"
        let forged = APIKey(keyID: server.app.ingestKey.keyID, kind: .ingest, secret: String(repeating: "0", count: 64))
        let unknown = APIKey.generate(kind: .ingest)
        for headers in [
            [], [("Authorization", "Bearer nonsense")], [("Authorization", "Basic \(server.app.ingestKey.token)")],
            [("Authorization", "Bearer \(forged.token)")], [("Authorization", "Bearer \(unknown.token)")],
        ] {
            let upload = try await server.request("POST", path, body: body, headers: headers)
            #expect(upload.status == 401, "\(headers)")
            let read = try await server.request("GET", "/v1/sessions", headers: headers)
            #expect(read.status == 401, "\(headers)")
            let position = try await server.request("GET", "/v1/stores/\(device.storeID)/position", headers: headers)
            #expect(position.status == 401, "\(headers)")
        }
        #expect(try await server.database.count("records") == 0)
        try await server.stop()
    }

    @Test func aKeyOfTheWrongKindIs403() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["k"])
        let upload = try await server.upload(try device.batch(), store: device.storeID, key: server.app.readKey)
        #expect(upload.status == 403)
        #expect(try await server.database.count("records") == 0)
        let list = try await server.request("GET", "/v1/sessions", key: server.app.ingestKey)
        #expect(list.status == 403)
        // A read key relabelled as an ingestion key is still a read key.
        let relabelled = APIKey(keyID: server.app.readKey.keyID, kind: .ingest, secret: server.app.readKey.secret)
        #expect(try await server.upload(try device.batch(), store: device.storeID, key: relabelled).status == 403)
        try await server.stop()
    }

    @Test func anotherAppNeitherSeesNorChangesAStore() async throws {
        let server = try await TestServer.start()
        let other = try await server.createApp()
        let device = try Device()
        try await device.runOnboarding(["mine-1", "mine-2"])
        #expect(try await server.upload(try device.batch(), store: device.storeID).status == 200)

        // The other app sees no session and no position of this store.
        let list = try await server.request("GET", "/v1/sessions", key: other.readKey)
        #expect(try list.json(SessionList.self).sessions.isEmpty)
        let filtered = try await server.request("GET", "/v1/sessions?store=\(device.storeID)", key: other.readKey)
        #expect(try filtered.json(SessionList.self).sessions.isEmpty)
        #expect(try await server.position(store: device.storeID, key: other.readKey) == 1)

        // Its upload under the same store id lands in its own space, not in this app's store.
        let intruder = try Device()
        try await intruder.runOnboarding(["theirs"])
        let write = try await server.upload(try intruder.batch(), store: device.storeID, key: other.ingestKey)
        #expect(write.status == 200)
        #expect(try await server.position(store: device.storeID) == 9)
        let mine = try await server.request("GET", "/v1/sessions", key: server.app.readKey).json(SessionList.self)
        #expect(mine.sessions.map(\.sessionID) == ["mine-1", "mine-2"])
        let theirs = try await server.request("GET", "/v1/sessions", key: other.readKey).json(SessionList.self)
        #expect(theirs.sessions.map(\.sessionID) == ["theirs"])
        try await server.stop()
    }

    @Test func keysAreStoredHashed() async throws {
        let server = try await TestServer.start()
        let secrets = try await server.database.withClient { client in
            var hashes: [[UInt8]] = []
            for try await hash in try await client.query("SELECT secret_sha256 FROM api_keys").decode(ByteBuffer.self) {
                hashes.append(Array(buffer: hash))
            }
            return hashes
        }
        #expect(secrets.count == 2)
        for key in [server.app.ingestKey, server.app.readKey] {
            #expect(!secrets.contains(Array(key.secret.utf8)))
            #expect(secrets.contains(Array(SHA256.hash(data: Array(key.secret.utf8)))))
        }
        try await server.stop()
    }
}

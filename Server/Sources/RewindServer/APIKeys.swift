import Crypto
import Foundation
import Logging
import PostgresNIO

/// What a key lets its holder do. Each app has keys of both kinds; neither does the other's job.
public enum KeyKind: String, Sendable, Codable, CaseIterable {
    /// Uploads a device's records (`POST /v1/stores/{id}/records`); reads nothing but the
    /// store's position.
    case ingest
    /// Queries the app's data; uploads nothing.
    case read
    /// Erases the app's sessions on request of the app team (`POST /v1/erasures`: one session, or
    /// every session whose context has a value); reads and uploads nothing. A kind of its own
    /// because ingestion keys ship inside every copy of the app and read keys sit in dashboards:
    /// neither should be able to delete data across every device.
    case erase

    /// The key's kind in a sentence ("an ingestion key").
    var phrase: String {
        switch self {
        case .ingest: "an ingestion key"
        case .read: "a read key"
        case .erase: "an erase key"
        }
    }
}

/// An API key as handed to its holder once: `rewind_<kind>_<key id>_<secret>`. The server keeps
/// the key id, the kind and the secret's SHA-256, never the secret.
public struct APIKey: Sendable, Equatable, CustomStringConvertible {
    /// The public part, which finds the key's row.
    public var keyID: String
    /// What the key may do.
    public var kind: KeyKind
    /// The secret part: 32 random bytes as 64 hex digits.
    public var secret: String

    /// The token to send as `Authorization: Bearer TOKEN`.
    public var token: String { "rewind_\(kind.rawValue)_\(keyID)_\(secret)" }
    /// The token.
    public var description: String { token }

    /// A new key of `kind`, from the system's cryptographically secure generator.
    public static func generate(kind: KeyKind) -> APIKey {
        var generator = SystemRandomNumberGenerator()
        let id = (0..<8).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let secret = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return APIKey(keyID: hex(id), kind: kind, secret: hex(secret))
    }

    /// Parses a token; `nil` when it does not have the shape of one (the caller answers 401).
    public init?(token: String) {
        let parts = token.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "rewind", let kind = KeyKind(rawValue: String(parts[1])),
            parts[2].utf8.count == 16, parts[3].utf8.count == 64,
            parts[2].utf8.allSatisfy(Self.isHexDigit), parts[3].utf8.allSatisfy(Self.isHexDigit)
        else { return nil }
        self.init(keyID: String(parts[2]), kind: kind, secret: String(parts[3]))
    }

    /// A key from its parts.
    public init(keyID: String, kind: KeyKind, secret: String) {
        self.keyID = keyID
        self.kind = kind
        self.secret = secret
    }

    /// The SHA-256 of the secret, as stored.
    var secretHash: [UInt8] { Array(SHA256.hash(data: Array(secret.utf8))) }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// Whether two byte strings are equal, in a time that depends on their lengths only (not on where
/// they first differ), so a secret's hash cannot be guessed byte by byte from response times.
func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for index in lhs.indices {
        difference |= lhs[index] ^ rhs[index]
    }
    return difference == 0
}

/// An app and the first keys of each kind, as `rewind-server create-app` prints them.
public struct CreatedApp: Sendable {
    /// The app's id in the database.
    public var appID: Int64
    /// The app's name.
    public var name: String
    /// The key that uploads.
    public var ingestKey: APIKey
    /// The key that reads.
    public var readKey: APIKey
}

/// The app whose key authenticated a request, and the key's kind.
public struct Caller: Sendable, Equatable {
    /// The app's id.
    public var appID: Int64
    /// The key's kind.
    public var kind: KeyKind
    /// The key's id (its public part): what its requests in progress are counted by
    /// (``ServerConfiguration/requestsPerKey``).
    public var keyID: String
}

/// Apps and their keys in the database.
public struct KeyRegistry: Sendable {
    let database: DatabasePool
    let logger: Logger
    var client: PostgresClient { database.client }

    /// A registry on `client`.
    public init(client: PostgresClient, logger: Logger) {
        self.init(database: DatabasePool(fixed: client), logger: logger)
    }

    /// A registry on the server's pool (its current client at each use).
    init(database: DatabasePool, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// An app whose name is taken already.
    public struct AppExistsError: Error, CustomStringConvertible {
        /// The name.
        public var name: String
        /// Describes the error.
        public var description: String { "an app named \(name.debugDescription) exists already" }
    }

    /// An app name no app has.
    public struct UnknownAppError: Error, CustomStringConvertible {
        /// The name.
        public var name: String
        /// Describes the error.
        public var description: String { "no app is named \(name.debugDescription)" }
    }

    /// The id of the app named `name`.
    /// - Throws: ``UnknownAppError``; PostgreSQL's errors.
    public func appID(named name: String) async throws -> Int64 {
        for id in try await client.rows("SELECT id FROM apps WHERE name = \(name)", logger: logger).decode(
            Int64.self)
        {
            return id
        }
        throw UnknownAppError(name: name)
    }

    /// Sets how long the app `appID` keeps a session after its last record (`nil`: for ever); the
    /// server's retention pass (``Retention``) removes older sessions.
    /// - Throws: PostgreSQL's errors.
    public func setRetention(_ retention: Duration?, ofApp appID: Int64) async throws {
        let seconds = retention.map { max($0.components.seconds, 1) }
        try await client.rows("UPDATE apps SET retention_seconds = \(seconds) WHERE id = \(appID)", logger: logger)
    }

    /// Creates the app `name` with one ingestion key and one read key, in one transaction.
    /// - Throws: ``AppExistsError``; PostgreSQL's errors (nothing created).
    public func createApp(named name: String) async throws -> CreatedApp {
        let ingest = APIKey.generate(kind: .ingest)
        let read = APIKey.generate(kind: .read)
        let logger = self.logger
        return try await client.transaction(logger: logger) { connection -> CreatedApp in
            let rows = try await connection.query(
                "INSERT INTO apps (name) VALUES (\(name)) ON CONFLICT (name) DO NOTHING RETURNING id", logger: logger)
            var appID: Int64?
            for try await id in rows.decode(Int64.self) { appID = id }
            guard let appID else { throw AppExistsError(name: name) }
            for key in [ingest, read] {
                try await Self.insert(key, appID: appID, on: connection, logger: logger)
            }
            return CreatedApp(appID: appID, name: name, ingestKey: ingest, readKey: read)
        }
    }

    /// Adds a new key of `kind` to the app `appID`.
    public func addKey(kind: KeyKind, toApp appID: Int64) async throws -> APIKey {
        let key = APIKey.generate(kind: kind)
        let logger = self.logger
        try await client.withLiveConnection { connection in
            try await Self.insert(key, appID: appID, on: connection, logger: logger)
        }
        return key
    }

    private static func insert(_ key: APIKey, appID: Int64, on connection: PostgresConnection, logger: Logger)
        async throws
    {
        let hash = ByteBuffer(bytes: key.secretHash)
        try await connection.query(
            """
            INSERT INTO api_keys (key_id, app_id, kind, secret_sha256)
            VALUES (\(key.keyID), \(appID), \(key.kind.rawValue), \(hash))
            """, logger: logger)
    }

    /// The caller a bearer token belongs to, or `nil` when it is malformed, unknown, revoked or
    /// its secret does not match (compared in constant time).
    public func authenticate(token: String) async throws -> Caller? {
        guard let key = APIKey(token: token) else { return nil }
        let rows = try await client.rows(
            """
            SELECT app_id, kind, secret_sha256 FROM api_keys WHERE key_id = \(key.keyID) AND revoked_at IS NULL
            """, logger: logger)
        for (appID, kind, stored) in try rows.decode((Int64, String, ByteBuffer).self) {
            // The token's kind is a label; the stored kind is what counts.
            guard let kind = KeyKind(rawValue: kind),
                constantTimeEqual(Array(buffer: stored), key.secretHash)
            else { return nil }
            return Caller(appID: appID, kind: kind, keyID: key.keyID)
        }
        return nil
    }
}

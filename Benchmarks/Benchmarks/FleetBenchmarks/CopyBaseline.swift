import BenchmarkSupport
import Foundation
import Logging
import PostgresNIO
import Rewind
import RewindServer
@_spi(Internals) import RewindStore

/// The baseline of the fleet's ingestion: PostgreSQL's own bulk path, `COPY … FROM STDIN`
/// (postgres-nio 1.33's `PostgresConnection.copyFrom`, text format), loading the same rows into
/// the same tables as ingestion does, with none of its work (no HTTP, no key, no framing, no
/// checksum, no decoding, no conflict check, no per-session upsert). Per device store, in one
/// transaction on one connection of a pool as large as the server's: the `stores` row (INSERT: the
/// foreign keys need it first), then `COPY records` (every column ingestion writes; `received_at`
/// takes its default, `now()`, as there), then `COPY sessions` (each session's head after the
/// device's last record, the row ingestion's upserts end at). The 64 stores load concurrently. The
/// `definitions` rows are not copied: ingestion stores a definition once per app, and the app has
/// them from the first upload.
///
/// The rows are built before the clock starts (only the store id differs between runs): the
/// timed part is the database's.
struct CopyBaseline: Sendable {
    /// One device's rows in COPY's text format, without the leading `app_id<TAB>store_id<TAB>`
    /// (each run loads them under a fresh store id).
    struct DeviceRows: Sendable {
        /// Each record's row after the store id: sequence, session, version, machine, definition,
        /// event, timestamp (µs), the record's bytes as bytea hex; newline-terminated.
        let recordTails: [[UInt8]]
        /// Each session's head row after the store id (the row ingestion's upserts end at).
        let sessionTails: [[UInt8]]
        /// The `stores` row's next sequence: one past the device's last record.
        let nextSequence: Int64
    }

    /// The rows of every device.
    let devices: [DeviceRows]

    /// The records columns COPY fills (ingestion's INSERT, `received_at` aside).
    static let recordColumns = [
        "app_id", "store_id", "sequence", "session_id", "version", "machine", "definition", "event", "recorded_at_us",
        "record",
    ]
    /// The sessions columns COPY fills (all of them).
    static let sessionColumns = [
        "app_id", "store_id", "session_id", "machine", "definition", "head_version", "head_sequence",
        "record_count", "first_recorded_at_us", "last_recorded_at_us", "last_event",
    ]

    init(devices fleet: [FleetDevice]) {
        devices = fleet.map { device in
            var recordTails: [[UInt8]] = []
            recordTails.reserveCapacity(device.records.count)
            struct Head {
                var last: TransitionRecord
                var count: Int64
                var first: Int64
            }
            var heads: [SessionID: Head] = [:]
            var order: [SessionID] = []
            for (record, bytes) in zip(device.records, device.encoded) {
                var row = "\(record.sequence)\t\(copyText(record.session.rawValue))\t\(record.version)\t"
                row += "\(copyText(record.machine))\t\(copyText(record.definition))\t\(copyText(record.event))\t"
                row += "\(record.timestamp.microsecondsSince1970)\t\\\\x"
                var tail = Array(row.utf8)
                tail.reserveCapacity(tail.count + bytes.count * 2 + 1)
                for byte in bytes {
                    tail.append(hexDigits[Int(byte >> 4)])
                    tail.append(hexDigits[Int(byte & 0xF)])
                }
                tail.append(10)
                recordTails.append(tail)
                if var head = heads[record.session] {
                    head.last = record
                    head.count += 1
                    heads[record.session] = head
                } else {
                    heads[record.session] = Head(last: record, count: 1, first: record.timestamp.microsecondsSince1970)
                    order.append(record.session)
                }
            }
            let sessionTails = order.compactMap { session -> [UInt8]? in
                guard let head = heads[session] else { return nil }
                let last = head.last
                return Array(
                    ("\(copyText(session.rawValue))\t\(copyText(last.machine))\t\(copyText(last.definition))\t"
                        + "\(last.version)\t\(last.sequence)\t\(head.count)\t\(head.first)\t"
                        + "\(last.timestamp.microsecondsSince1970)\t\(copyText(last.event))\n").utf8)
            }
            return DeviceRows(
                recordTails: recordTails, sessionTails: sessionTails, nextSequence: Int64(device.records.count + 1))
        }
    }

    /// The number of records one run loads.
    var recordCount: Int { devices.reduce(0) { $0 + $1.recordTails.count } }

    /// Each device's COPY data for a run under `storeIDs` (one per device), built before timing.
    func buffers(appID: Int64, storeIDs: [UUID]) -> [(records: ByteBuffer, sessions: ByteBuffer)] {
        zip(devices, storeIDs).map { rows, storeID in
            let prefix = Array("\(appID)\t\(storeID.uuidString.lowercased())\t".utf8)
            func buffer(_ tails: [[UInt8]]) -> ByteBuffer {
                var buffer = ByteBuffer()
                buffer.reserveCapacity(tails.reduce(0) { $0 + $1.count + prefix.count })
                for tail in tails {
                    buffer.writeBytes(prefix)
                    buffer.writeBytes(tail)
                }
                return buffer
            }
            return (buffer(rows.recordTails), buffer(rows.sessionTails))
        }
    }

    /// Loads the prepared buffers, each device in its own transaction, all devices concurrently
    /// over `client`; returns the seconds it took.
    func load(
        _ buffers: [(records: ByteBuffer, sessions: ByteBuffer)], appID: Int64, storeIDs: [UUID], client: PostgresClient
    ) async throws -> Double {
        let logger = FleetCluster.logger
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, (rows, storeID)) in zip(devices, storeIDs).enumerated() {
                let (records, sessions) = buffers[index]
                group.addTask {
                    try await client.withTransaction(logger: logger) { connection in
                        try await connection.query(
                            """
                            INSERT INTO stores (app_id, store_id, next_sequence) VALUES (\(appID), \(storeID), \(rows.nextSequence))
                            """, logger: logger)
                        try await connection.copyFrom(table: "records", columns: Self.recordColumns, logger: logger) {
                            writer in
                            try await writeChunked(records, to: writer)
                        }
                        try await connection.copyFrom(table: "sessions", columns: Self.sessionColumns, logger: logger) {
                            writer in
                            try await writeChunked(sessions, to: writer)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        return start.duration(to: clock.now).seconds
    }
}

/// Writes `buffer` in slices of 256 KiB (each a CopyData message).
private func writeChunked(_ buffer: ByteBuffer, to writer: PostgresCopyFromWriter) async throws {
    var rest = buffer
    while rest.readableBytes > 0, let slice = rest.readSlice(length: min(rest.readableBytes, 256 * 1024)) {
        try await writer.write(slice)
    }
}

private let hexDigits = Array("0123456789abcdef".utf8)

/// `text` escaped for COPY's text format (backslash, tab, newline, carriage return).
private func copyText(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 == 92 || $0 == 9 || $0 == 10 || $0 == 13 }) else { return text }
    var escaped = ""
    for character in text.unicodeScalars {
        switch character {
        case "\\": escaped += "\\\\"
        case "\t": escaped += "\\t"
        case "\n": escaped += "\\n"
        case "\r": escaped += "\\r"
        default: escaped.unicodeScalars.append(character)
        }
    }
    return escaped
}

/// A PostgreSQL client of `url` with at most `connections` connections, run for the lifetime of
/// the benchmark that made it (``stop()`` ends it).
final class RunningClient: Sendable {
    /// The client.
    let client: PostgresClient
    private let task: Task<Void, Never>

    init(_ url: DatabaseURL, connections: Int) {
        var configuration: PostgresClient.Configuration
        if let socket = url.unixSocketPath {
            configuration = .init(
                unixSocketPath: socket, username: url.username, password: url.password, database: url.database)
        } else {
            configuration = .init(
                host: url.host ?? "127.0.0.1", port: url.port, username: url.username, password: url.password,
                database: url.database, tls: .disable)
        }
        configuration.options.maximumConnections = connections
        let client = PostgresClient(configuration: configuration, backgroundLogger: FleetCluster.logger)
        self.client = client
        task = Task { await client.run() }
    }

    /// Stops the client.
    func stop() async {
        task.cancel()
        await task.value
    }
}

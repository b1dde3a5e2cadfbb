import Foundation
import Logging
import PostgresNIO
import RewindWire

/// A device's erasure notice (`POST /v1/stores/{storeID}/erasures`): what the device erased from
/// its log, by the global sequences of the records it removed.
public struct ErasureNotice: Sendable, Equatable {
    /// What the device erased: whole sessions, records of kept sessions, or sessions its
    /// retention dropped (RewindWire documents each kind).
    public typealias Kind = ErasureNoticesBody.Kind

    /// The notice's number: 1, 2, … per store.
    public var number: Int64
    /// What was erased.
    public var kind: Kind
    /// When the device erased it.
    public var erasedAt: Date
    /// The sequences erased, as ranges (first and last included); they may name sequences the
    /// server has not received.
    public var ranges: [ClosedRange<Int64>]

    /// A notice from its parts.
    public init(number: Int64, kind: Kind, erasedAt: Date, ranges: [ClosedRange<Int64>]) {
        self.number = number
        self.kind = kind
        self.erasedAt = erasedAt
        self.ranges = ranges
    }

    /// The notices of a request body `{"notices": [{"number", "kind", "erasedAt", "ranges": [[first, last], …]}]}`.
    ///
    /// - Throws: ``APIError`` 400 naming what is wrong.
    static func notices(fromJSON body: some Collection<UInt8>) throws(APIError) -> [ErasureNotice] {
        let wire: ErasureNoticesBody
        do {
            wire = try JSONDecoder().decode(ErasureNoticesBody.self, from: Data(body))
        } catch {
            throw APIError(
                .badRequest,
                "the body is not {\"notices\": [{\"number\", \"kind\": \"session\", \"records\" or \"retention\", \"erasedAt\", \"ranges\": [[first, last], …]}]}: \(error)"
            )
        }
        var notices: [ErasureNotice] = []
        for (index, notice) in wire.notices.enumerated() {
            let details: [String: APIError.Detail] = ["noticeIndex": .integer(Int64(index))]
            guard notice.number >= 1 else {
                throw APIError(
                    .badRequest, "notice \(index) has number \(notice.number); notices are numbered from 1",
                    details: details)
            }
            guard let erasedAt = Erasure.time(notice.erasedAt) else {
                throw APIError(
                    .badRequest, "notice \(index)'s erasedAt is not an ISO 8601 time: \(notice.erasedAt)",
                    details: details)
            }
            var ranges: [ClosedRange<Int64>] = []
            for range in notice.ranges {
                guard range.count == 2, range[0] >= 1, range[0] <= range[1] else {
                    throw APIError(
                        .badRequest,
                        "notice \(index) has the range \(range); a range is [first, last] with 1 ≤ first ≤ last",
                        details: details)
                }
                ranges.append(range[0]...range[1])
            }
            notices.append(ErasureNotice(number: notice.number, kind: notice.kind, erasedAt: erasedAt, ranges: ranges))
        }
        return notices
    }
}

extension ErasureNotice {
    /// Applies the notices of store `storeID` of app `appID` that the server has not applied yet,
    /// in ONE transaction (all or nothing), in number order; notices at or below the store's
    /// highest applied number are ignored (a device sends again what it has no answer for). A
    /// session a `records` notice trims keeps the state at its first version left as its base
    /// (``SessionBases``), so its replay begins there.
    ///
    /// - Throws: ``APIError`` 409 with `through` when a number is skipped (nothing applied).
    static func apply(
        _ notices: [ErasureNotice], storeID: UUID, appID: Int64, client: PostgresClient, logger: Logger
    ) async throws -> ErasureNoticesAnswer {
        // The states trimmed sessions will begin at, rebuilt before their records go.
        let bases = try await SessionBases.rebuilt(
            removing: notices.filter { $0.kind == .records }.flatMap(\.ranges), appID: appID, storeID: storeID,
            client: client, logger: logger)
        return try await client.transaction(logger: logger) { connection -> ErasureNoticesAnswer in
            try await Erasure.lockApp(appID, exclusive: true, connection: connection, logger: logger)
            try await connection.query(
                """
                INSERT INTO stores (app_id, store_id) VALUES (\(appID), \(storeID)) ON CONFLICT DO NOTHING
                """, logger: logger)
            var (next, through): (Int64, Int64) = (1, 0)
            for try await row in try await connection.query(
                """
                SELECT next_sequence, erasure_notices_through FROM stores
                WHERE app_id = \(appID) AND store_id = \(storeID) FOR UPDATE
                """, logger: logger
            ).decode((Int64, Int64).self) {
                (next, through) = row
            }
            var outcomes: [ErasureNoticesAnswer.Outcome] = []
            var trimmed: Set<String> = []
            for notice in notices.sorted(by: { $0.number < $1.number }) where notice.number > through {
                guard notice.number == through + 1 else {
                    throw APIError(
                        .conflict,
                        "notice \(notice.number) follows notice \(through): send the notices from \(through + 1) on",
                        details: ["through": .integer(through)])
                }
                let sessions: [ErasedSession]
                switch notice.kind {
                case .session:
                    let ids = try await Erasure.sessions(
                        at: notice.ranges, appID: appID, storeID: storeID, connection: connection, logger: logger)
                    sessions = try await Erasure.eraseSessions(
                        ids, appID: appID, erasedAt: notice.erasedAt, tombstone: .device, connection: connection,
                        logger: logger)
                    try await Erasure.addErasedRanges(
                        notice.ranges, appID: appID, storeID: storeID, connection: connection, logger: logger)
                case .records:
                    sessions = try await Erasure.removeRecords(
                        at: notice.ranges, appID: appID, storeID: storeID, erasedAt: notice.erasedAt,
                        connection: connection, logger: logger)
                    trimmed.formUnion(sessions.map(\.session))
                case .retention:
                    // Every sequence before `next` is held or erased already: only those after
                    // it are news (records the device dropped before uploading them).
                    let unreceived = notice.ranges.compactMap { range in
                        range.upperBound < next ? nil : max(range.lowerBound, next)...range.upperBound
                    }
                    try await Erasure.addErasedRanges(
                        unreceived, appID: appID, storeID: storeID, connection: connection, logger: logger)
                    sessions = []
                }
                let records = sessions.reduce(0) { $0 + $1.stores.reduce(0) { $0 + $1.records } }
                outcomes.append(
                    ErasureNoticesAnswer.Outcome(
                        number: notice.number, kind: notice.kind, sessions: sessions, records: records))
                through = notice.number
            }
            try await SessionBases.store(
                bases.filter { trimmed.contains($0.session) }, appID: appID, storeID: storeID,
                connection: connection, logger: logger)
            if !outcomes.isEmpty {
                try await connection.query(
                    """
                    UPDATE stores SET erasure_notices_through = \(through) WHERE app_id = \(appID) AND store_id = \(storeID)
                    """, logger: logger)
                // Sequences the device erased before uploading them: the upload resumes past them.
                try await Erasure.setNextSequence(
                    next, appID: appID, storeID: storeID, connection: connection, logger: logger)
            }
            return ErasureNoticesAnswer(through: through, erased: outcomes)
        }
    }
}

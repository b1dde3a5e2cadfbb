import Foundation
import Rewind
import RewindStore
import RewindWire

/// The fleet server's ingestion endpoints (`GET …/position`, `POST …/records`, `POST
/// …/erasures`; Server/README.md) through the one ``FleetHTTPClient``, their answers sorted into
/// what the uploader does next.
struct UploadClient: Sendable {
    /// What the server did with a batch.
    enum Outcome: Sendable, Equatable {
        /// 200: it holds the store's records up to `nextSequence` (exclusive).
        case accepted(nextSequence: UInt64, stored: Int, alreadyHeld: Int)
        /// 409: the batch does not continue where the server's copy ends; `recordIndex` is set
        /// when a record the server holds differs from the one sent.
        case conflict(nextSequence: UInt64, recordIndex: Int?, message: String)
        /// 413: the body is larger than the server accepts.
        case tooLarge(message: String)
        /// 400: the batch was refused.
        case badRequest(message: String)
    }

    let http: FleetHTTPClient
    let storeID: UUID

    init(server: URL, key: String, storeID: UUID, timeout: Duration) {
        http = FleetHTTPClient(base: server, key: key, timeout: timeout)
        self.storeID = storeID
    }

    /// The server's next expected sequence for the store (1 when it holds none).
    ///
    /// - Throws: ``UploadError/forbidden(message:)`` when the server says the key may not upload
    ///   (a read key), before anything is to be sent.
    func position() async throws(UploadError) -> UInt64 {
        let answer = try await exchange("GET", "position")
        guard answer.status == 200 else { throw Self.failure(answer) }
        guard let position = try? JSONDecoder().decode(StorePosition.self, from: answer.body),
            position.nextSequence >= 1
        else {
            throw UploadError.invalidResponse(
                message: "the position answer has no nextSequence: \(FleetHTTPClient.excerpt(answer.body))")
        }
        if position.mayUpload == false {
            throw UploadError.forbidden(message: "this is a read key; uploading needs the app's ingestion key")
        }
        return position.nextSequence
    }

    /// Posts erasure notices (`POST …/erasures`, JSON); returns the number of the last notice the
    /// server has applied.
    func postErasures(_ notices: [ErasureNotice]) async throws(UploadError) -> UInt64 {
        let body: Data
        do {
            body = try JSONEncoder().encode(Self.body(of: notices))
        } catch {
            throw UploadError.invalidResponse(message: "the erasure notices could not be encoded: \(error)")
        }
        let answer = try await exchange("POST", "erasures", body: body, contentType: "application/json")
        if answer.status == 404 {
            // Every server that takes records has this route but one older than erasures.
            throw UploadError.serverOutdated(
                message: "POST \(answer.url.path) answered 404: this rewind-server predates erasure notices")
        }
        guard answer.status == 200 else { throw Self.failure(answer) }
        guard let applied = try? JSONDecoder().decode(ErasureNoticesAnswer.self, from: answer.body),
            applied.through >= 0
        else {
            throw UploadError.invalidResponse(
                message: "an erasure answer without through: \(FleetHTTPClient.excerpt(answer.body))")
        }
        return UInt64(applied.through)
    }

    /// The body of `POST …/erasures` for `notices`.
    static func body(of notices: [ErasureNotice]) -> ErasureNoticesBody {
        ErasureNoticesBody(
            notices: notices.map { notice in
                ErasureNoticesBody.Notice(
                    number: Int64(clamping: notice.number), kind: wireKind(notice.kind),
                    erasedAt: notice.erasedAt.description,
                    ranges: notice.ranges.map { [Int64(clamping: $0.lowerBound), Int64(clamping: $0.upperBound)] })
            })
    }

    /// The kind as the server names it: `session`, `records` or `retention`.
    static func wireKind(_ kind: ErasureNotice.Kind) -> ErasureNoticesBody.Kind {
        switch kind {
        case .sessions: .session
        case .records: .records
        case .retention: .retention
        }
    }

    /// Posts one batch's body.
    func post(_ body: [UInt8]) async throws(UploadError) -> Outcome {
        let answer = try await exchange("POST", "records", body: Data(body), contentType: RecordBatch.mediaType)
        switch answer.status {
        case 200:
            guard let result = try? JSONDecoder().decode(IngestionResult.self, from: answer.body) else {
                throw UploadError.invalidResponse(
                    message: "an acceptance without nextSequence: \(FleetHTTPClient.excerpt(answer.body))")
            }
            return .accepted(nextSequence: result.nextSequence, stored: result.stored, alreadyHeld: result.alreadyHeld)
        case 409:
            guard let error = try? JSONDecoder().decode(ErrorAnswer.self, from: answer.body),
                let next = error.integer("nextSequence"), next >= 1
            else {
                throw UploadError.invalidResponse(
                    message: "a conflict without nextSequence: \(FleetHTTPClient.excerpt(answer.body))")
            }
            return .conflict(
                nextSequence: UInt64(next), recordIndex: error.integer("recordIndex").map { Int(clamping: $0) },
                message: error.error)
        case 413:
            return .tooLarge(message: answer.message)
        case 400:
            return .badRequest(message: answer.message)
        default:
            throw Self.failure(answer)
        }
    }

    /// Sends `method` to the store's `endpoint`; no answer is ``UploadError/network(message:)``.
    private func exchange(
        _ method: String, _ endpoint: String, body: Data? = nil, contentType: String? = nil
    ) async throws(UploadError) -> FleetHTTPClient.Answer {
        guard let url = http.url(["v1", "stores", storeID.uuidString, endpoint]) else {
            throw UploadError.invalidResponse(
                message: "\(http.base.absoluteString) does not make a URL with \(endpoint)")
        }
        do {
            return try await http.send(method, to: url, body: body, contentType: contentType)
        } catch is CancellationError {
            throw UploadError.network(message: "cancelled")
        } catch {
            throw UploadError.network(message: "\(error)")
        }
    }

    /// The error of an answer that is not a success the caller handles.
    static func failure(_ answer: FleetHTTPClient.Answer) -> UploadError {
        let message = answer.message
        switch answer.status {
        case 401: return .unauthorized(message: message)
        case 403: return .forbidden(message: message)
        case 408, 429, 500...: return .server(status: answer.status, message: message)
        default: return .rejected(status: answer.status, message: message)
        }
    }
}

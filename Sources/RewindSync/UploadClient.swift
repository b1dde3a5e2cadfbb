import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Rewind
import RewindStore

/// The fleet server's two ingestion endpoints over `URLSession`: `GET …/position` and
/// `POST …/records` (Server/README.md), their answers sorted into what the uploader does next.
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

    let session: URLSession
    let recordsURL: URL
    let positionURL: URL
    let erasuresURL: URL
    let authorization: String
    let timeout: TimeInterval

    init(server: URL, key: String, storeID: UUID, timeout: Duration) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout.timeInterval
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
        let store = server.appendingPathComponent("v1").appendingPathComponent("stores")
            .appendingPathComponent(storeID.uuidString)
        recordsURL = store.appendingPathComponent("records")
        positionURL = store.appendingPathComponent("position")
        erasuresURL = store.appendingPathComponent("erasures")
        authorization = "Bearer \(key)"
        self.timeout = timeout.timeInterval
    }

    /// The server's next expected sequence for the store (1 when it holds none).
    ///
    /// - Throws: ``UploadError/forbidden(message:)`` when the server says the key may not upload
    ///   (a read key), before anything is to be sent.
    func position() async throws(UploadError) -> UInt64 {
        var request = URLRequest(url: positionURL, timeoutInterval: timeout)
        request.setValue(authorization, forHTTPHeaderField: "Authorization")
        let (status, body) = try await exchange(request)
        guard status == 200 else { throw Self.failure(status: status, body: body) }
        let answer = Answer.decode(body)
        guard let next = answer?.nextSequence, next >= 1 else {
            throw UploadError.invalidResponse(message: "the position answer has no nextSequence: \(Self.excerpt(body))")
        }
        if answer?.mayUpload == false {
            throw UploadError.forbidden(message: "this is a read key; uploading needs the app's ingestion key")
        }
        return next
    }

    /// Posts erasure notices (`POST …/erasures`, JSON); returns the number of the last notice the
    /// server has applied.
    func postErasures(_ notices: [ErasureNotice]) async throws(UploadError) -> UInt64 {
        var request = URLRequest(url: erasuresURL, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue(authorization, forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        do {
            request.httpBody = try JSONEncoder().encode(ErasureNotices(notices))
        } catch {
            throw UploadError.invalidResponse(message: "the erasure notices could not be encoded: \(error)")
        }
        let (status, body) = try await exchange(request)
        if status == 404 {
            // Every server that takes records has this route but one older than erasures.
            throw UploadError.serverOutdated(
                message: "POST \(erasuresURL.path) answered 404: this rewind-server predates erasure notices")
        }
        guard status == 200 else { throw Self.failure(status: status, body: body) }
        guard let through = Answer.decode(body)?.through else {
            throw UploadError.invalidResponse(message: "an erasure answer without through: \(Self.excerpt(body))")
        }
        return through
    }

    /// The body of `POST …/erasures` (Server/README.md).
    struct ErasureNotices: Encodable {
        struct Notice: Encodable {
            var number: UInt64
            var kind: String
            var erasedAt: String
            var ranges: [[UInt64]]
        }

        var notices: [Notice]

        /// The kind as the server names it: `session`, `records` or `retention`.
        static func wireKind(_ kind: ErasureNotice.Kind) -> String {
            switch kind {
            case .sessions: "session"
            case .records: "records"
            case .retention: "retention"
            }
        }

        init(_ notices: [ErasureNotice]) {
            self.notices = notices.map { notice in
                Notice(
                    number: notice.number, kind: Self.wireKind(notice.kind),
                    erasedAt: notice.erasedAt.description,
                    ranges: notice.ranges.map { [$0.lowerBound, $0.upperBound] })
            }
        }
    }

    /// Posts one batch's body.
    func post(_ body: [UInt8]) async throws(UploadError) -> Outcome {
        var request = URLRequest(url: recordsURL, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue(authorization, forHTTPHeaderField: "Authorization")
        request.setValue(RecordBatch.mediaType, forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body)
        let (status, answerBody) = try await exchange(request)
        let answer = Answer.decode(answerBody)
        switch status {
        case 200:
            guard let answer, let next = answer.nextSequence else {
                throw UploadError.invalidResponse(message: "an acceptance without nextSequence: \(Self.excerpt(answerBody))")
            }
            return .accepted(nextSequence: next, stored: answer.stored ?? 0, alreadyHeld: answer.alreadyHeld ?? 0)
        case 409:
            guard let answer, let next = answer.nextSequence else {
                throw UploadError.invalidResponse(message: "a conflict without nextSequence: \(Self.excerpt(answerBody))")
            }
            return .conflict(nextSequence: next, recordIndex: answer.recordIndex, message: answer.error ?? "")
        case 413:
            return .tooLarge(message: answer?.error ?? Self.excerpt(answerBody))
        case 400:
            return .badRequest(message: answer?.error ?? Self.excerpt(answerBody))
        default:
            throw Self.failure(status: status, body: answerBody)
        }
    }

    /// Sends `request`; a transport failure is ``UploadError/network(message:)``.
    private func exchange(_ request: URLRequest) async throws(UploadError) -> (Int, Data) {
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch is CancellationError {
            throw UploadError.network(message: "cancelled")
        } catch {
            throw UploadError.network(message: "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? ""): \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw UploadError.invalidResponse(message: "not an HTTP response")
        }
        return (http.statusCode, data)
    }

    /// The error of an answer that is not a success the caller handles.
    static func failure(status: Int, body: Data) -> UploadError {
        let message = Answer.decode(body)?.error ?? excerpt(body)
        switch status {
        case 401: return .unauthorized(message: message)
        case 403: return .forbidden(message: message)
        case 408, 429, 500...: return .server(status: status, message: message)
        default: return .rejected(status: status, message: message)
        }
    }

    /// The start of a body, for messages.
    static func excerpt(_ body: Data) -> String {
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        return text.isEmpty ? "(empty body)" : text
    }

    /// The fields of the server's JSON answers the uploader reads.
    struct Answer: Decodable {
        var nextSequence: UInt64?
        /// Whether the key may upload (the position's answer; absent from older servers).
        var mayUpload: Bool?
        var stored: Int?
        var alreadyHeld: Int?
        var recordIndex: Int?
        /// The last erasure notice the server applied (the erasures' answer).
        var through: UInt64?
        var error: String?

        static func decode(_ body: Data) -> Answer? {
            try? JSONDecoder().decode(Answer.self, from: body)
        }
    }
}

extension Duration {
    /// The duration as a `TimeInterval`, for Foundation's APIs.
    var timeInterval: TimeInterval { seconds }
}

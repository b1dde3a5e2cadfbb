import RewindStore

/// Why an upload failed. Network errors, timeouts, 5xx, 408 and 429 are ``isRetryable``: the
/// background upload retries them after a ``Backoff``. The rest need a person (a revoked or wrong
/// key, a store whose log differs from the server's copy) and stop the background upload.
public enum UploadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 401: no valid key (unknown, revoked or mistyped).
    case unauthorized(message: String)
    /// 403: a key of the wrong kind (a read key cannot upload).
    case forbidden(message: String)
    /// Another 4xx answer the uploader cannot act on (400: the server refused the batch).
    case rejected(status: Int, message: String)
    /// 413 for a batch of one record: that record alone is larger than the server accepts.
    case recordTooLarge(sequence: UInt64, bytes: Int, message: String)
    /// The server holds records of this store that differ from the device's (a different record
    /// at `sequence`, or more records than the device's log has): the store was restored from a
    /// copy or replaced under the same id. Nothing is uploaded over it.
    case diverged(sequence: UInt64, message: String)
    /// A 5xx, 408 or 429 answer (retried).
    case server(status: Int, message: String)
    /// The request did not complete: no connection, a connection lost, a timeout (retried).
    case network(message: String)
    /// An answer that is not what the server sends (a proxy's page, a cut body) (retried).
    case invalidResponse(message: String)
    /// Reading the device's store or writing its checkpoint failed; `cause` is the store's error
    /// (an `LMDBError`, a ``StoreError``), kept typed: `cause.error as? LMDBError`.
    case store(ErrorCause)
    /// The server is older than what the store needs sent: it does not take erasure notices (404
    /// on `POST …/erasures`). Nothing is lost: the notices and the records after them wait in the
    /// store until the server is updated; no record is sent before the server has its erasures.
    case serverOutdated(message: String)

    /// Whether trying again later may succeed without anyone changing anything.
    public var isRetryable: Bool {
        switch self {
        case .server, .network, .invalidResponse: true
        case .unauthorized, .forbidden, .rejected, .recordTooLarge, .diverged, .store, .serverOutdated: false
        }
    }

    /// Says what failed.
    public var description: String {
        switch self {
        case .unauthorized(let message): "the server refused the key (401): \(message)"
        case .forbidden(let message): "the key may not upload (403): \(message)"
        case .rejected(let status, let message): "the server refused the batch (\(status)): \(message)"
        case .recordTooLarge(let sequence, let bytes, let message):
            "record \(sequence) (\(bytes) bytes) is larger than the server accepts (413): \(message)"
        case .diverged(let sequence, let message):
            "the server's copy of this store differs from the device's log at sequence \(sequence): \(message)"
        case .server(let status, let message): "the server failed (\(status)): \(message)"
        case .network(let message): "the request did not complete: \(message)"
        case .invalidResponse(let message): "the server's answer is not understood: \(message)"
        case .store(let cause): "the store: \(cause)"
        case .serverOutdated(let message):
            "the server must be updated to take this store's erasures (nothing was lost; they and the records after them wait in the store): \(message)"
        }
    }
}

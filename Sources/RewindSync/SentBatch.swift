/// A batch posted to the server, its answer still to come. The request runs in a task of its
/// own, so that the ``Uploader`` can read and send the next batch before this one's answer comes.
struct SentBatch: Sendable {
    /// The batch sent.
    let pending: PendingBatch
    /// Whether it was sent before the answer to the batch before it came: the server may have
    /// checked it before storing that batch, and refused it for starting past its position.
    let ahead: Bool
    private let request: Task<UploadClient.Outcome, any Error>

    /// Posts `pending` with `client`; `ahead`: before the answer to the batch before it.
    init(_ pending: PendingBatch, client: UploadClient, ahead: Bool) {
        self.pending = pending
        self.ahead = ahead
        let body = pending.batch.encoded()
        request = Task { try await client.post(body) }
    }

    /// The server's answer. Cancelling the task that waits cancels the request.
    func outcome() async throws(UploadError) -> UploadClient.Outcome {
        let request = request
        let result = await withTaskCancellationHandler {
            await request.result
        } onCancel: {
            request.cancel()
        }
        switch result {
        case .success(let outcome): return outcome
        case .failure(let error as UploadError): throw error
        case .failure(let error): throw UploadError.network(message: "\(error)")
        }
    }

    /// Cancels the request, whose answer no longer matters, and waits for it to end. The server
    /// may still have stored the batch: the uploader learns that from its next answer or its
    /// position, as after any request whose answer was lost.
    func cancel() async {
        request.cancel()
        _ = await request.result
    }
}

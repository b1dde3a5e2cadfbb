import Foundation
import Synchronization

/// The uploader's current ``UploadProgress`` and the streams that follow it: readable from any
/// thread without the actor (a view reads it synchronously), each change delivered to every
/// stream (a slow reader gets the newest, never a backlog).
final class ProgressBroadcaster: Sendable {
    private struct State {
        var progress: UploadProgress
        var streams: [UInt64: AsyncStream<UploadProgress>.Continuation] = [:]
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    init(_ progress: UploadProgress) {
        state = Mutex(State(progress: progress))
    }

    var progress: UploadProgress { state.withLock { $0.progress } }

    /// Changes the progress with `change` and delivers the result to every stream.
    func update(_ change: (inout UploadProgress) -> Void) {
        state.withLock { state in
            var progress = state.progress
            change(&progress)
            guard progress != state.progress else { return }
            state.progress = progress
            for continuation in state.streams.values { continuation.yield(progress) }
        }
    }

    /// A stream of the progress: the current one first, then each change.
    func stream() -> AsyncStream<UploadProgress> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: UploadProgress.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.streams[id] = continuation
            continuation.yield(state.progress)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// Ends every stream.
    func finish() {
        let streams = state.withLock { state in
            defer { state.streams.removeAll() }
            return Array(state.streams.values)
        }
        for continuation in streams { continuation.finish() }
    }
}

#if canImport(CCurl)
    import CCurl
    import Foundation
    import Synchronization

    /// The fleet client's HTTP transport on Linux: libcurl's multi interface, driven by a thread
    /// of its own that sleeps in `curl_multi_poll` until a socket, a timer or a new request needs
    /// it.
    ///
    /// Why not `URLSession` here, as on Apple's systems: FoundationNetworking drives the same
    /// libcurl, but it keeps a socket's write-readiness source registered after curl stops asking
    /// for it (it adds the sources curl asks for and removes them only when curl forgets the
    /// socket). A socket is almost always writable, so from a new connection's `connect` or a body
    /// larger than curl's 64 KiB upload buffer until the answer arrives, its queue wakes and asks
    /// curl again, hundreds of thousands of times a second. A `rewind push` of 12,170 records in
    /// 89 KB batches used 2.5 s of user and 6.2 s of system CPU that way, more than the server
    /// that stored them (Benchmarks/HISTORY.md, "rewind push: a client that waits without
    /// spinning"). Here a request that waits for its answer costs nothing until it comes.
    ///
    /// Connections are kept alive and reused between requests (the multi handle's connection
    /// cache), TLS is libcurl's (the system's certificates), proxies follow libcurl's environment
    /// variables, and redirects are followed as `URLSession` follows them.
    final class CurlTransport: Sendable {
        /// A request that got no HTTP answer: curl's description of what went wrong.
        struct Failure: Error {
            var message: String
        }

        private struct State {
            /// Requests submitted and not yet handed to curl.
            var submitted: [Transfer] = []
            /// Requests whose tasks were cancelled while curl had them.
            var cancelled: [Transfer] = []
            var threadStarted = false
            var shuttingDown = false
            /// The multi handle has been cleaned up: nothing may wake it any more.
            var closed = false
        }

        /// The multi handle: used by the loop's thread only (`curl_multi_wakeup` excepted, which
        /// libcurl allows from any thread: it is called with `state` locked and not `closed`).
        private nonisolated(unsafe) let multi: UnsafeMutableRawPointer
        private let state = Mutex(State())

        /// libcurl's global set-up, once per process before the first handle.
        private static let globalInitialization: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))

        /// A transport with no connection yet; its thread starts with the first request.
        init() {
            _ = Self.globalInitialization
            // curl_multi_init fails only when it cannot allocate.
            guard let multi = curl_multi_init() else { fatalError("libcurl could not allocate a multi handle") }
            self.multi = multi
        }

        /// Ends the loop's thread once the requests under way have ended (each holds the client,
        /// so when its last reference goes there are none).
        func shutDown() {
            state.withLock { state in
                state.shuttingDown = true
                if state.threadStarted {
                    curl_multi_wakeup(multi)
                } else {
                    state.closed = true
                    curl_multi_cleanup(multi)
                }
            }
        }

        /// Sends `method` to `url` with `headers` (`Name: value` lines) and `body`, and returns the
        /// answer's status and body.
        ///
        /// - Throws: `CancellationError` when the task is cancelled (the request is abandoned at
        ///   once), ``Failure`` when no HTTP answer came within `timeout` seconds.
        func send(
            _ method: String, to url: URL, headers: [String], body: Data?, timeout: TimeInterval
        ) async throws -> (status: Int, body: Data) {
            let transfer = try Transfer(method: method, url: url, headers: headers, body: body, timeout: timeout)
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    guard transfer.begin(continuation) else {
                        continuation.resume(throwing: CancellationError())
                        return
                    }
                    submit(transfer)
                }
            } onCancel: {
                if transfer.cancel() {
                    state.withLock { state in
                        guard !state.closed else { return }
                        state.cancelled.append(transfer)
                        curl_multi_wakeup(multi)
                    }
                }
            }
        }

        private func submit(_ transfer: Transfer) {
            let start = state.withLock { state in
                state.submitted.append(transfer)
                guard !state.threadStarted else {
                    curl_multi_wakeup(multi)
                    return false
                }
                state.threadStarted = true
                return true
            }
            if start {
                let thread = Thread { [self] in run() }
                thread.name = "rewind.sync.http"
                thread.start()
            }
        }

        /// The loop: hands new requests to curl, drops cancelled ones, lets curl read and write,
        /// finishes the transfers it reports done, and sleeps until something needs it.
        private func run() {
            var running: [UnsafeMutableRawPointer: Transfer] = [:]
            while true {
                let (submitted, cancelled, shuttingDown) = state.withLock { state in
                    defer {
                        state.submitted.removeAll()
                        state.cancelled.removeAll()
                    }
                    return (state.submitted, state.cancelled, state.shuttingDown)
                }
                for transfer in submitted {
                    running[transfer.handle] = transfer
                    curl_multi_add_handle(multi, transfer.handle)
                }
                for transfer in cancelled where running.removeValue(forKey: transfer.handle) != nil {
                    curl_multi_remove_handle(multi, transfer.handle)
                    transfer.finish(.failure(CancellationError()))
                }
                if shuttingDown, running.isEmpty { break }

                var stillRunning: Int32 = 0
                curl_multi_perform(multi, &stillRunning)
                var left: Int32 = 0
                while let message = curl_multi_info_read(multi, &left) {
                    guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                        let transfer = running.removeValue(forKey: handle)
                    else { continue }
                    let code = message.pointee.data.result
                    curl_multi_remove_handle(multi, handle)
                    transfer.finish(transfer.outcome(of: code))
                }
                // Sleeps until a socket or curl's timer needs it, or a wakeup (a request submitted
                // or cancelled, the shutdown); an idle loop wakes once a minute.
                curl_multi_poll(multi, nil, 0, running.isEmpty ? 60_000 : 1_000, nil)
            }
            state.withLock { state in
                state.closed = true
                curl_multi_cleanup(multi)
            }
        }
    }

    /// One request: its easy handle, the answer as it arrives, and the caller waiting for it.
    ///
    /// Sendable by confinement: its handle and body are touched by the thread that makes it
    /// until it is submitted, then by the loop's thread only; `phase` is locked.
    private final class Transfer: @unchecked Sendable {
        enum Phase {
            case new
            case waiting(CheckedContinuation<(status: Int, body: Data), any Error>)
            case cancelled
            case finished
        }

        let handle: UnsafeMutableRawPointer
        let timeout: TimeInterval
        private var headerList: UnsafeMutablePointer<curl_slist>?
        private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        /// The answer's body so far (appended by curl's write callback, on the loop's thread).
        var received = Data()
        private let phase = Mutex(Phase.new)

        init(method: String, url: URL, headers: [String], body: Data?, timeout: TimeInterval) throws {
            guard let handle = curl_easy_init() else {
                throw CurlTransport.Failure(message: "libcurl could not allocate")
            }
            self.handle = handle
            self.timeout = timeout
            errorBuffer.initialize(to: 0)
            // "Expect:" (empty) leaves out curl's `Expect: 100-continue`, and its wait, on large bodies.
            for header in headers + ["Expect:"] { headerList = curl_slist_append(headerList, header) }
            let milliseconds = Int(min(max(timeout * 1000, 1), Double(Int32.max)))
            var code = CURLE_OK
            func set(_ result: CURLcode) { if code == CURLE_OK { code = result } }
            set(rewind_curl_set_string(handle, CURLOPT_URL, url.absoluteString))
            set(rewind_curl_set_long(handle, CURLOPT_NOSIGNAL, 1))
            set(rewind_curl_set_long(handle, CURLOPT_TIMEOUT_MS, milliseconds))
            set(rewind_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 1))
            set(rewind_curl_set_long(handle, CURLOPT_MAXREDIRS, 16))
            set(rewind_curl_set_pointer(handle, CURLOPT_HTTPHEADER, headerList))
            set(rewind_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
            set(rewind_curl_set_write_function(handle, Transfer.append))
            if let body {
                // The size first: COPYPOSTFIELDS copies that many bytes (a body may hold zeros).
                set(rewind_curl_set_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
                body.withUnsafeBytes { bytes in
                    if let start = bytes.baseAddress {
                        set(rewind_curl_set_pointer(handle, CURLOPT_COPYPOSTFIELDS, start))
                    } else {
                        set(rewind_curl_set_string(handle, CURLOPT_COPYPOSTFIELDS, ""))
                    }
                }
            }
            if method != (body == nil ? "GET" : "POST") {
                set(rewind_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, method))
            }
            if code != CURLE_OK {
                throw CurlTransport.Failure(
                    message: "libcurl refused an option: \(String(cString: curl_easy_strerror(code)))")
            }
            set(rewind_curl_set_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(self).toOpaque()))
        }

        deinit {
            curl_easy_cleanup(handle)
            curl_slist_free_all(headerList)
            errorBuffer.deallocate()
        }

        /// curl's write callback: a piece of the body, appended to the transfer's `received`.
        private static let append:
            @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
                data, size, count, context in
                guard let data, let context else { return 0 }
                let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
                transfer.received.append(
                    UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: size * count)
                return size * count
            }

        /// Records the waiting caller; `false` when the task was cancelled first.
        func begin(_ continuation: CheckedContinuation<(status: Int, body: Data), any Error>) -> Bool {
            phase.withLock { phase in
                guard case .new = phase else { return false }
                phase = .waiting(continuation)
                return true
            }
        }

        /// Marks the transfer cancelled; `true` when curl has it and the loop must drop it.
        func cancel() -> Bool {
            phase.withLock { phase in
                switch phase {
                case .new:
                    phase = .cancelled
                    return false
                case .waiting:
                    return true
                case .cancelled, .finished:
                    return false
                }
            }
        }

        /// Resumes the caller with `result` (once).
        func finish(_ result: Result<(status: Int, body: Data), any Error>) {
            let waiting = phase.withLock { phase -> CheckedContinuation<(status: Int, body: Data), any Error>? in
                guard case .waiting(let continuation) = phase else { return nil }
                phase = .finished
                return continuation
            }
            waiting?.resume(with: result)
        }

        /// The answer, or what went wrong, once curl reports the transfer done with `code`.
        func outcome(of code: CURLcode) -> Result<(status: Int, body: Data), any Error> {
            guard code == CURLE_OK else {
                let detail = String(cString: errorBuffer)
                let summary = String(cString: curl_easy_strerror(code))
                var message = detail.isEmpty ? summary : "\(summary): \(detail)"
                if code == CURLE_OPERATION_TIMEDOUT {
                    message = "no answer within \(String(format: "%g", timeout)) s (\(message))"
                }
                return .failure(CurlTransport.Failure(message: message))
            }
            var status = 0
            rewind_curl_response_code(handle, &status)
            return .success((status, received))
        }
    }
#endif

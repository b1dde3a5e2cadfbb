import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP proxy on 127.0.0.1 in front of a server, for faults between an uploader and the server:
/// it forwards both directions byte for byte, or cuts a connection after a number of bytes of a
/// request (a dropped connection mid-body) or when a POST's answer starts (a lost answer), and
/// reports how many request bytes it forwarded. The upstream port can change (a server restarted
/// on another port). Blocking sockets on threads of its own.
///
/// Faults apply to each request, not to each connection: a client keeps a connection alive
/// across requests (`URLSession` sends the position's GET and then the batches' POSTs on one), so
/// the proxy follows the requests on a connection (heads and `Content-Length` bodies) and reads
/// the mode when each request's bytes pass, not when the connection was accepted.
final class TCPProxy: Sendable {
    /// What the proxy does with the next connections.
    enum Mode: Sendable, Equatable {
        /// Forward everything.
        case pass
        /// Forward the first `bytes` bytes of each request, then close both sides of its
        /// connection (the server sees a cut body; the client a lost connection). Shorter
        /// requests pass whole.
        case cutAfter(bytes: Int)
        /// Forward requests whole, but cut a POST's connection when its answer starts, so the
        /// server has stored the batch and the client never hears it (GETs are answered).
        case dropAnswersToPosts
    }

    private struct State {
        var mode: Mode = .pass
        var upstreamPort: Int
        var connections = 0
        var cuts = 0
        var requestBytes = 0
        var open: Set<Int32> = []
        var closed = false
    }

    /// The port the proxy listens on.
    let port: Int
    private let listener: Int32
    private let state: Mutex<State>
    /// Each time request bytes pass: the total forwarded so far.
    let forwarded: AsyncStream<Int>
    private let forwardedContinuation: AsyncStream<Int>.Continuation

    init(upstreamPort: Int) throws {
        let bound = try Self.loopbackSocket(listening: 64)
        listener = bound.descriptor
        port = bound.port
        state = Mutex(State(upstreamPort: upstreamPort))
        (forwarded, forwardedContinuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    var mode: Mode {
        get { state.withLock { $0.mode } }
        set { state.withLock { $0.mode = newValue } }
    }

    var upstreamPort: Int {
        get { state.withLock { $0.upstreamPort } }
        set { state.withLock { $0.upstreamPort = newValue } }
    }

    /// Connections accepted so far, and how many were cut.
    var counts: (connections: Int, cuts: Int) { state.withLock { ($0.connections, $0.cuts) } }

    /// Closes the listener and every open connection.
    func close() {
        let descriptors = state.withLock { state -> [Int32] in
            state.closed = true
            return Array(state.open)
        }
        for descriptor in descriptors { shutdown(descriptor, Int32(SHUT_RDWR)) }
        shutdown(listener, Int32(SHUT_RDWR))
        closeSocket(listener)
        forwardedContinuation.finish()
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let (upstreamPort, closed) = state.withLock { state in
                state.connections += 1
                return (state.upstreamPort, state.closed)
            }
            if closed {
                closeSocket(client)
                return
            }
            let upstream = Self.connectUpstream(port: upstreamPort)
            guard upstream >= 0 else {
                closeSocket(client)
                continue
            }
            state.withLock { $0.open.formUnion([client, upstream]) }
            let pair = Pair(client: client, upstream: upstream)
            Thread { [self] in pump(from: client, to: upstream, pair: pair, isRequest: true) }.start()
            Thread { [self] in pump(from: upstream, to: client, pair: pair, isRequest: false) }.start()
        }
    }

    /// The two sockets of a connection; closed once both pumps are done.
    private final class Pair: Sendable {
        let client: Int32
        let upstream: Int32
        let finished = Mutex(0)
        /// Whether the request last sent on the connection (the one being answered) is a POST.
        let isPost = Mutex(false)
        init(client: Int32, upstream: Int32) {
            self.client = client
            self.upstream = upstream
        }
    }

    /// Forwards `source` to `destination` until either ends or a fault cuts the connection; the
    /// client's side (`isRequest`) through a ``RequestTracker``.
    private func pump(from source: Int32, to destination: Int32, pair: Pair, isRequest: Bool) {
        var buffer = [UInt8](repeating: 0, count: 16384)
        var requests = RequestTracker()
        var cut = false
        loop: while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            let mode = self.mode
            var passing = count
            if isRequest {
                let limit: Int? = if case .cutAfter(let bytes) = mode { bytes } else { nil }
                passing = requests.feed(buffer[..<count], limit: limit)
                pair.isPost.withLock { $0 = requests.isPost }
                // The request reached the limit: what passed is all the server gets of it.
                if let limit, requests.isMidRequest, requests.requestBytes >= limit { cut = true }
            } else if mode == .dropAnswersToPosts, pair.isPost.withLock({ $0 }) {
                cut = true
                break
            }
            var sent = 0
            while sent < passing {
                let written = buffer[sent..<passing].withUnsafeBytes {
                    send(destination, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if written <= 0 { break loop }
                sent += written
            }
            if isRequest, passing > 0 {
                let all = state.withLock { state in
                    state.requestBytes += passing
                    return state.requestBytes
                }
                forwardedContinuation.yield(all)
            }
            if cut { break }
        }
        if cut {
            state.withLock { $0.cuts += 1 }
            // A dropped connection: both sides see it end, the server with the body cut short.
            shutdown(pair.client, Int32(SHUT_RDWR))
            shutdown(pair.upstream, Int32(SHUT_RDWR))
        } else {
            // One direction ended: pass the end on (a half close), so the other pump ends too.
            shutdown(destination, Int32(SHUT_WR))
            if !isRequest {
                shutdown(pair.client, Int32(SHUT_RDWR))
                shutdown(pair.upstream, Int32(SHUT_RDWR))
            }
        }
        let done = pair.finished.withLock { count in
            count += 1
            return count == 2
        }
        if done {
            state.withLock { $0.open.subtract([pair.client, pair.upstream]) }
            closeSocket(pair.client)
            closeSocket(pair.upstream)
        }
    }

    private static func connectUpstream(port: Int) -> Int32 {
        (try? connectToLoopback(port: port)) ?? -1
    }
}

/// `close(2)` (the proxy's own `close()` hides the name inside it).
private func closeSocket(_ descriptor: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(descriptor)
    #else
        _ = Darwin.close(descriptor)
    #endif
}

extension TCPProxy {
    /// A port of 127.0.0.1 that was free a moment ago (bound to port 0, then closed).
    static func freePort() throws -> Int {
        let bound = try loopbackSocket(listening: nil)
        closeSocket(bound.descriptor)
        return bound.port
    }

    /// A TCP socket bound to a free port of 127.0.0.1, listening with `backlog` unless `nil`, and
    /// that port.
    static func loopbackSocket(listening backlog: Int32?) throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawHTTP.SocketError(what: "socket", code: errno) }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound, backlog.map({ listen(descriptor, $0) == 0 }) ?? true else {
            let code = errno
            closeSocket(descriptor)
            throw RawHTTP.SocketError(what: "bind/listen", code: code)
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }
}

/// Follows the HTTP/1.1 requests a client sends on one connection: each request's head (its
/// method and `Content-Length`) and body, so the proxy knows which request bytes belong to and
/// where the next one starts. Requests without a `Content-Length` have no body (the uploader's
/// always carry one).
struct RequestTracker {
    private var head: [UInt8] = []
    private var inBody = false
    private var bodyRemaining = 0
    /// Bytes of the current request seen so far, head included.
    private(set) var requestBytes = 0
    /// Whether the current request (or the last one, between requests) is a POST.
    private(set) var isPost = false

    /// Whether a request has started and not ended.
    var isMidRequest: Bool { inBody || !head.isEmpty }

    /// Follows `bytes`; returns how many of them come before the current request reaches
    /// `limit` bytes (all of them when no request reaches it).
    mutating func feed(_ bytes: ArraySlice<UInt8>, limit: Int?) -> Int {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if !isMidRequest { requestBytes = 0 }
            if let limit, requestBytes >= limit { break }
            if inBody {
                var step = min(bodyRemaining, bytes.endIndex - index)
                if let limit { step = min(step, limit - requestBytes) }
                index += step
                requestBytes += step
                bodyRemaining -= step
                if bodyRemaining == 0 { inBody = false }
            } else {
                head.append(bytes[index])
                index += 1
                requestBytes += 1
                if head.count == 4, head.starts(with: Array("POST".utf8)) { isPost = true }
                if head.count == 4, !head.starts(with: Array("POST".utf8)) { isPost = false }
                if head.count >= 4, head.suffix(4).elementsEqual([13, 10, 13, 10]) { endHead() }
            }
        }
        return index - bytes.startIndex
    }

    /// The head is complete: its body (if any) follows.
    private mutating func endHead() {
        let text = String(decoding: head, as: UTF8.self)
        head.removeAll()
        bodyRemaining = 0
        for line in text.split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length",
                let length = Int(parts[1].trimmingCharacters(in: .whitespaces))
            {
                bodyRemaining = length
            }
        }
        inBody = bodyRemaining > 0
    }
}

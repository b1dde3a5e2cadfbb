import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An HTTP/1.1 server on 127.0.0.1 for the client's tests: a thread per connection, connections
/// kept open between requests, each request (with `Content-Length` bodies) answered by `respond`
/// (or the connection closed without an answer when it returns `nil`) and recorded with the number
/// of the connection it came on.
final class LoopbackHTTPServer: Sendable {
    /// A request as the server read it.
    struct Request: Sendable {
        var method: String
        var path: String
        /// Header values by lowercased name.
        var headers: [String: String]
        var body: [UInt8]
        /// 1 for the first connection the server accepted, 2 for the next, …
        var connection: Int
    }

    /// The answer to a request.
    struct Answer: Sendable {
        var status: Int
        var body: [UInt8]
    }

    let port: Int
    private let listener: Int32
    private let log = RequestLog()

    /// What the server received, shared with its connections' threads.
    private final class RequestLog: Sendable {
        private let state = Mutex<(requests: [Request], connections: Int)>(([], 0))

        var requests: [Request] { state.withLock { $0.requests } }

        func append(_ request: Request) { state.withLock { $0.requests.append(request) } }

        /// The number of a connection just accepted.
        func nextConnection() -> Int {
            state.withLock { state in
                state.connections += 1
                return state.connections
            }
        }
    }

    /// A server answering each request with `respond(request)`; `nil` closes the connection
    /// without an answer.
    init(respond: @escaping @Sendable (Request) -> Answer?) throws {
        let (listener, port) = try loopbackSocket(listening: 64)
        (self.listener, self.port) = (listener, port)
        let thread = Thread { [log] in
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }  // the listener was shut down
                let number = log.nextConnection()
                Thread {
                    Self.serve(connection, number: number, log: log, respond: respond)
                }.start()
            }
        }
        thread.start()
    }

    /// The requests received so far, in the order they were read.
    var requests: [Request] { log.requests }

    private static func serve(
        _ connection: Int32, number: Int, log: RequestLog,
        respond: @Sendable (Request) -> Answer?
    ) {
        defer { close(connection) }
        var buffer: [UInt8] = []
        while let request = readRequest(connection, buffer: &buffer, number: number) {
            log.append(request)
            guard let answer = respond(request) else { return }
            let head =
                "HTTP/1.1 \(answer.status) Answer\r\nContent-Length: \(answer.body.count)\r\n"
                + "Content-Type: application/json\r\n\r\n"
            guard writeAll(connection, Array(head.utf8) + answer.body) else { return }
        }
    }

    /// The next request on `connection`, or `nil` when the client closed it.
    private static func readRequest(_ connection: Int32, buffer: inout [UInt8], number: Int) -> Request? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while true {
            if buffer.count >= 4 {
                headEnd = (0...(buffer.count - 4)).first { buffer[$0..<($0 + 4)].elementsEqual(separator) }
                if headEnd != nil { break }
            }
            guard readMore(connection, into: &buffer) else { return nil }
        }
        guard let headEnd else { return nil }
        let lines = String(decoding: buffer[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        buffer.removeFirst(headEnd + 4)
        while buffer.count < length {
            guard readMore(connection, into: &buffer) else { return nil }
        }
        let body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return Request(
            method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: body,
            connection: number)
    }

    private static func readMore(_ connection: Int32, into buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
        guard count > 0 else { return false }
        buffer += chunk[..<count]
        return true
    }

    private static func writeAll(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Stops accepting connections (those open end when their clients close them).
    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}

/// A socket of 127.0.0.1 that listens and never answers: requests to it hang.
struct SilentListener: ~Copyable {
    let descriptor: Int32
    let port: Int

    init() throws {
        (descriptor, port) = try loopbackSocket(listening: 8)
    }

    /// Returns once a client has connected (its request is then in flight, unanswered).
    func acceptOne() async -> Int32 {
        let descriptor = descriptor
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: accept(descriptor, nil, nil)) }
        }
    }

    deinit { close(descriptor) }
}

/// A TCP socket bound to a free port of 127.0.0.1, listening with `backlog` when it is set (else
/// bound only: nothing accepts a connection to it), and its port.
func loopbackSocket(listening backlog: Int32?) throws -> (descriptor: Int32, port: Int) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
                && (backlog.map { listen(descriptor, $0) == 0 } ?? true)
        }
    }
    guard bound else {
        close(descriptor)
        throw POSIXError(.EADDRNOTAVAIL)
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}

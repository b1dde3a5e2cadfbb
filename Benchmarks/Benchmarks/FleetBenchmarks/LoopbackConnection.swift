import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An HTTP/1.1 connection to 127.0.0.1 kept alive across requests, with blocking socket calls:
/// a device's uploader in the fleet benchmark, one per device, each on a thread of its own (so no
/// device waits on the cooperative pool the server's handlers run on). It sends a request with a
/// `Content-Length` body and reads the response (`Content-Length` or chunked).
final class LoopbackConnection {
    private let descriptor: Int32
    private let port: Int
    private var buffer: [UInt8] = []
    private var scratch = [UInt8](repeating: 0, count: 65536)

    /// A response: status and body.
    struct Response {
        var status: Int
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// A socket call failed, or the server's answer was not HTTP.
    struct ConnectionError: Error, CustomStringConvertible {
        let description: String
    }

    /// Connects to 127.0.0.1:`port`.
    init(port: Int) throws {
        #if canImport(Glibc)
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw ConnectionError(description: "socket: \(String(cString: strerror(errno)))") }
        self.port = port
        var noDelay: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            throw ConnectionError(description: "connect to 127.0.0.1:\(port): \(String(cString: strerror(code)))")
        }
    }

    deinit { close(descriptor) }

    /// Sends `method path` with `headers` and `body`, and reads the whole response.
    func request(_ method: String, _ path: String, headers: [(String, String)], body: [UInt8]) throws -> Response {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        try send(Array(head.utf8))
        try send(body)
        return try readResponse()
    }

    private func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                systemSend(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { throw ConnectionError(description: "send: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    /// Reads more bytes into `buffer`.
    private func fill() throws {
        let count = scratch.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else {
            throw ConnectionError(
                description: count == 0
                    ? "the server closed the connection" : "recv: \(String(cString: strerror(errno)))")
        }
        buffer.append(contentsOf: scratch[..<count])
    }

    /// The index just past the first occurrence of `separator` in `buffer` at or after `start`,
    /// reading more until it arrives.
    private func find(_ separator: [UInt8], from start: Int) throws -> Int {
        var from = start
        while true {
            if buffer.count >= separator.count {
                var index = max(from, 0)
                while index + separator.count <= buffer.count {
                    if buffer[index] == separator[0], buffer[index..<(index + separator.count)].elementsEqual(separator)
                    {
                        return index + separator.count
                    }
                    index += 1
                }
                from = max(0, buffer.count - separator.count + 1)
            }
            try fill()
        }
    }

    private func take(_ count: Int) throws -> [UInt8] {
        while buffer.count < count { try fill() }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }

    private func readResponse() throws -> Response {
        let headEnd = try find([13, 10, 13, 10], from: 0)
        let lines = String(decoding: buffer[..<(headEnd - 4)], as: UTF8.self).components(separatedBy: "\r\n")
        buffer.removeFirst(headEnd)
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw ConnectionError(description: "not an HTTP status line: \(lines[0])")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        if let length = headers["content-length"].flatMap(Int.init) {
            return Response(status: status, body: try take(length))
        }
        guard headers["transfer-encoding"]?.lowercased() == "chunked" else {
            throw ConnectionError(description: "a response with neither Content-Length nor chunked encoding")
        }
        var body: [UInt8] = []
        while true {
            let lineEnd = try find([13, 10], from: 0)
            let sizeText = String(decoding: buffer[..<(lineEnd - 2)], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw ConnectionError(description: "a bad chunk size line")
            }
            buffer.removeFirst(lineEnd)
            if size == 0 {
                _ = try find([13, 10], from: 0)  // the empty trailer
                buffer.removeFirst(2)
                return Response(status: status, body: body)
            }
            body += try take(size)
            _ = try take(2)
        }
    }
}

#if canImport(Glibc)
    private let systemSend = Glibc.send
#else
    private let systemSend = Darwin.send
#endif

/// Runs `body` on a new thread and returns its result (blocking socket work stays off the
/// cooperative pool).
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A response as received: status, headers (lowercased names) and body.
struct HTTPTestResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    func json<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(body))
    }

    /// The body as a JSON object.
    func object() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not a JSON object: \(text)"))
        }
        return object
    }
}

/// HTTP/1.1 over a plain socket to 127.0.0.1, so a test can send exactly the bytes it means to
/// (a cut body, a lying Content-Length). Blocking I/O runs on a thread of its own, never on the
/// cooperative pool the server's handlers need.
enum RawHTTP {
    struct SocketError: Error, CustomStringConvertible {
        var what: String
        var code: Int32
        var description: String { "\(what) failed: \(String(cString: strerror(code)))" }
    }

    /// Sends `bytes`, reads until the server closes, and parses the response.
    static func exchange(port: Int, bytes: [UInt8]) async throws -> HTTPTestResponse {
        try parse(try await roundTrip(port: port, bytes: bytes, closeAfterSending: false))
    }

    /// Sends `bytes` and closes the connection without reading (a client that gave up mid-body).
    static func sendAndHangUp(port: Int, bytes: [UInt8]) async throws {
        _ = try await roundTrip(port: port, bytes: bytes, closeAfterSending: true)
    }

    /// The exchange on a thread of its own; when the caller is cancelled (the suite's time limit),
    /// the socket is shut down, so a server that never answers cannot hold the test forever.
    private static func roundTrip(port: Int, bytes: [UInt8], closeAfterSending: Bool) async throws -> [UInt8] {
        let descriptor = try connectToLoopback(port: port)
        defer { close(descriptor) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let thread = Thread {
                    continuation.resume(
                        with: Result {
                            try exchange(on: descriptor, bytes: bytes, closeAfterSending: closeAfterSending)
                        })
                }
                thread.start()
            }
        } onCancel: {
            shutdown(descriptor, Int32(SHUT_RDWR))
        }
    }

    private static func exchange(on descriptor: Int32, bytes: [UInt8], closeAfterSending: Bool) throws -> [UInt8] {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            // The server may answer (413) and close before reading everything: stop sending then.
            if count < 0 {
                if errno == EPIPE || errno == ECONNRESET { break }
                throw SocketError(what: "send", code: errno)
            }
            sent += count
        }
        if closeAfterSending { return [] }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == ECONNRESET && !response.isEmpty { break }
                throw SocketError(what: "recv", code: errno)
            }
            if count == 0 { break }
            response.append(contentsOf: buffer[..<count])
        }
        return response
    }

    struct MalformedResponse: Error { var bytes: [UInt8] }

    private static func parse(_ raw: [UInt8]) throws -> HTTPTestResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = raw.indices.first(where: { raw[$0...].starts(with: separator) }) else {
            throw MalformedResponse(bytes: raw)
        }
        let head = String(decoding: raw[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw MalformedResponse(bytes: raw) }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = Array(raw[(end + 4)...])
        if let length = headers["content-length"].flatMap(Int.init), body.count > length {
            body = Array(body[..<length])
        }
        if headers["transfer-encoding"] == "chunked" { body = try dechunk(body) }
        return HTTPTestResponse(status: status, headers: headers, body: body)
    }

    private static func dechunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard let lineEnd = bytes[index...].indices.first(where: { bytes[$0...].starts(with: [13, 10]) }),
                let size = Int(String(decoding: bytes[index..<lineEnd], as: UTF8.self), radix: 16)
            else { throw MalformedResponse(bytes: bytes) }
            if size == 0 { break }
            let start = lineEnd + 2
            guard start + size <= bytes.count else { throw MalformedResponse(bytes: bytes) }
            result.append(contentsOf: bytes[start..<(start + size)])
            index = start + size + 2
        }
        return result
    }
}

/// A TCP socket connected to `port` on 127.0.0.1 (the caller closes it).
func connectToLoopback(port: Int) throws(RawHTTP.SocketError) -> Int32 {
    #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { throw RawHTTP.SocketError(what: "socket", code: errno) }
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
        throw RawHTTP.SocketError(what: "connect", code: code)
    }
    return descriptor
}

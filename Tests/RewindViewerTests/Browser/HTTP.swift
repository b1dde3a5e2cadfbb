import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP/1.1 request to 127.0.0.1 over a blocking socket, `Connection: close`: the body of the
/// reply (WebDriver's JSON). Enough for chromedriver, which answers with a `Content-Length` body.
enum HTTP {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func exchange(method: String, port: Int, path: String, body: Data?) throws -> Data {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "cannot connect to 127.0.0.1:\(port) (errno \(errno))") }
        var request = Data("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n".utf8)
        if let body {
            request.append(
                Data("Content-Type: application/json; charset=utf-8\r\nContent-Length: \(body.count)\r\n\r\n".utf8))
            request.append(body)
        } else {
            request.append(Data("Content-Length: 0\r\n\r\n".utf8))
        }
        try request.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = send(fd, buffer.baseAddress! + offset, buffer.count - offset, 0)
                guard written > 0 else { throw Failure(description: "send() failed (errno \(errno))") }
                offset += written
            }
        }
        // Read until the body is complete (Content-Length, or the last chunk), or the server
        // closes the connection: chromedriver may keep it open despite `Connection: close`.
        var reply = Data()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let split = reply.range(of: Data("\r\n\r\n".utf8)) {
                let head = String(decoding: reply[..<split.lowerBound], as: UTF8.self).lowercased()
                let body = reply[split.upperBound...]
                if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                    let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
                {
                    if body.count >= length { return Data(body.prefix(length)) }
                } else if head.contains("transfer-encoding: chunked"),
                    body.range(of: Data("\r\n0\r\n\r\n".utf8)) != nil
                        || body.starts(with: Data("0\r\n\r\n".utf8))
                {
                    return try dechunk(Data(body))
                }
            }
            let count = recv(fd, &chunk, chunk.count, 0)
            if count == 0 { break }
            guard count > 0 else {
                if errno == EINTR { continue }
                throw Failure(description: "recv() failed (errno \(errno))")
            }
            reply.append(contentsOf: chunk[0..<count])
        }
        guard let split = reply.range(of: Data("\r\n\r\n".utf8)) else {
            throw Failure(
                description: "no HTTP header in the reply: \(String(decoding: reply.prefix(200), as: UTF8.self))")
        }
        let head = String(decoding: reply[..<split.lowerBound], as: UTF8.self).lowercased()
        let body = Data(reply[split.upperBound...])
        return head.contains("transfer-encoding: chunked") ? try dechunk(body) : body
    }

    private static func dechunk(_ data: Data) throws -> Data {
        var out = Data()
        var rest = data[...]
        while let line = rest.range(of: Data("\r\n".utf8)) {
            guard
                let size = Int(
                    String(decoding: rest[..<line.lowerBound], as: UTF8.self).split(separator: ";")[0], radix: 16)
            else {
                throw Failure(description: "a bad chunk size")
            }
            if size == 0 { break }
            let start = line.upperBound
            out.append(rest[start..<(start + size)])
            rest = rest[(start + size + 2)...]
        }
        return out
    }
}

import Foundation

extension SessionArchive {
    /// The most bytes one line of an archive may hold (64 MiB, the newline not counted): a
    /// longer line is refused as soon as it passes the limit, so a file that is not an archive
    /// (one huge line, an endless device) is not read into memory whole.
    public static let maximumLineBytes = 64 << 20

    /// The bytes of the archive file at `url`, read in chunks of at most 1 MiB; a line longer
    /// than `maximumLineBytes` stops the reading as soon as it passes the limit.
    ///
    /// - Throws: ``SessionArchiveError/lineTooLong(line:limit:)`` with the 1-based line; the
    ///   file's read errors.
    public static func read(from url: URL) throws -> Data {
        try read(from: url, maximumLineBytes: maximumLineBytes)
    }

    /// ``read(from:)`` with another line limit (for tests).
    static func read(from url: URL, maximumLineBytes: Int) throws -> Data {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var data = Data()
        var line = 1
        var lineLength = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            chunk.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
                guard let base = buffer.baseAddress else { return }
                var offset = 0
                while offset < buffer.count {
                    // memchr: the newline search runs at memory speed, also in debug builds.
                    if let found = memchr(base + offset, Int32(UInt8(ascii: "\n")), buffer.count - offset) {
                        lineLength += base.distance(to: UnsafeRawPointer(found)) - offset
                        if lineLength > maximumLineBytes { break }
                        line += 1
                        lineLength = 0
                        offset = base.distance(to: UnsafeRawPointer(found)) + 1
                    } else {
                        lineLength += buffer.count - offset
                        offset = buffer.count
                    }
                }
            }
            if lineLength > maximumLineBytes {
                throw SessionArchiveError.lineTooLong(line: line, limit: maximumLineBytes)
            }
            data.append(chunk)
        }
        return data
    }

    /// Throws ``SessionArchiveError/lineTooLong(line:limit:)`` for the first line of `lines`
    /// longer than `maximumLineBytes`.
    static func checkLineLengths(_ lines: [Range<Int>], fragment: Range<Int>?) throws {
        for (index, range) in (lines + (fragment.map { [$0] } ?? [])).enumerated() where range.count > maximumLineBytes
        {
            throw SessionArchiveError.lineTooLong(line: index + 1, limit: maximumLineBytes)
        }
    }
}

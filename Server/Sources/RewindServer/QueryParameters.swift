import Foundation
import Hummingbird

/// A request's query parameters, read with typed errors: a bad value is a 400 naming the
/// parameter and saying what it must be.
struct QueryParameters {
    let parameters: Parameters
    /// Whether an empty value counts as absent: a form's fields left blank (the fleet page's
    /// filters) arrive as `name=`.
    let ignoresEmptyValues: Bool

    init(_ request: Request, ignoringEmptyValues: Bool = false) {
        parameters = request.uri.queryParameters
        ignoresEmptyValues = ignoringEmptyValues
    }

    /// The value of `name`, `nil` when absent (or empty, when empty values are ignored).
    private func value(_ name: String) -> Substring? {
        guard let value = parameters[Substring(name)] else { return nil }
        return ignoresEmptyValues && value.isEmpty ? nil : value
    }

    static func invalid(_ name: String, _ message: String) -> APIError {
        APIError(.badRequest, "\(name) \(message)", details: ["parameter": .text(name)])
    }

    /// A text parameter, `nil` when absent; empty or over 1,000 bytes or with a NUL is a 400.
    func text(_ name: String) throws(APIError) -> String? {
        guard let value = value(name) else { return nil }
        guard !value.isEmpty, value.utf8.count <= 1000, !value.utf8.contains(0) else {
            throw Self.invalid(name, "must be 1 to 1000 bytes of text without NUL")
        }
        return String(value)
    }

    /// A UUID parameter.
    func uuid(_ name: String) throws(APIError) -> UUID? {
        guard let value = value(name) else { return nil }
        guard let id = UUID(uuidString: String(value)) else { throw Self.invalid(name, "must be a UUID") }
        return id
    }

    /// A whole number in `range`, `defaultValue` when absent.
    func integer(_ name: String, in range: ClosedRange<Int>, default defaultValue: Int) throws(APIError) -> Int {
        guard let value = value(name) else { return defaultValue }
        guard let number = Int(value), range.contains(number) else {
            throw Self.invalid(name, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// A time as µs since 1970: RFC 3339 (`2026-11-26T07:00:00Z`, fractions and offsets allowed),
    /// a whole number of µs, or a day (`2026-11-26`, UTC, as a form's date field sends it): its
    /// first µs, or with `dayEnds` the first µs of the next day (the day included in a range that
    /// ends before its `to`).
    func time(_ name: String, dayEnds: Bool = false) throws(APIError) -> Int64? {
        guard let value = value(name) else { return nil }
        if let microseconds = Int64(value) { return microseconds }
        let text = String(value)
        if let day = Self.day(text) { return (dayEnds ? day + 1 : day) * 86_400_000_000 }
        for options: ISO8601DateFormatter.Options in [
            [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime],
        ] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text) {
                let microseconds = (date.timeIntervalSince1970 * 1_000_000).rounded()
                if let exact = Int64(exactly: microseconds) { return exact }
            }
        }
        throw Self.invalid(
            name, "must be an RFC 3339 time (2026-11-26T07:00:00Z), a day (2026-11-26) or microseconds since 1970")
    }

    /// Days since 1970-01-01 of a `YYYY-MM-DD` day, `nil` for any other text or a day that does
    /// not exist.
    static func day(_ text: String) -> Int64? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let components = DateComponents(year: year, month: month, day: day)
        guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else { return nil }
        return Int64((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    /// The time range `from` (inclusive) to `to` (exclusive); `from` after `to` is a 400.
    func timeRange() throws(APIError) -> TimeRange {
        let range = TimeRange(from: try time("from"), to: try time("to", dayEnds: true))
        if let from = range.from, let to = range.to, from > to {
            throw Self.invalid("from", "must not be after to")
        }
        return range
    }
}

/// A range of times in µs since 1970, either end open.
struct TimeRange: Sendable, Equatable, Encodable {
    /// The first time included.
    var from: Int64?
    /// The first time past the range.
    var to: Int64?
}

/// The position after the last session of a page of `GET /v1/sessions`: its store and session id,
/// as opaque text (base64url of the store id's 16 bytes and the session id's UTF-8).
struct SessionCursor: Equatable {
    var storeID: UUID
    var sessionID: String

    var text: String {
        let id = storeID.uuid
        var bytes = withUnsafeBytes(of: id) { Array($0) }
        bytes.append(contentsOf: sessionID.utf8)
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    init(storeID: UUID, sessionID: String) {
        self.storeID = storeID
        self.sessionID = sessionID
    }

    /// Reads a cursor; `nil` when `text` is not one.
    init?(_ text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), data.count > 16 else { return nil }
        let bytes = Array(data)
        let id = bytes[..<16].withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }
        guard let session = String(validating: bytes[16...], as: UTF8.self), !session.utf8.contains(0) else {
            return nil
        }
        storeID = UUID(uuid: id)
        sessionID = session
    }
}

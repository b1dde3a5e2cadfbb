import Foundation
import RewindValues

/// A wall-clock instant stored as whole microseconds since 1970-01-01T00:00:00Z (UTC).
///
/// Time units, one per boundary: the store keeps instants as microseconds (``microsecondsSince1970``:
/// records, session entries, snapshots, projection states); the public API's unit is `Duration`
/// (`MachineClock.now`, `ScheduledEvent.due`, send delays, intervals), and the statechart layer
/// counts in whole milliseconds of it (SCXML's unit; what definitions and machine states persist).
/// The engine converts between a record's instant and the machine's time here and nowhere else
/// (``machineTime``, ``init(machineTime:)``).
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Microseconds since 1970-01-01T00:00:00Z; negative before it.
    public var microsecondsSince1970: Int64

    /// Creates a timestamp from microseconds since 1970.
    public init(microsecondsSince1970: Int64) {
        self.microsecondsSince1970 = microsecondsSince1970
    }

    /// The instant on the statechart layer's clock (time since 1970, in whole milliseconds,
    /// truncated toward zero): the `now` a machine step is evaluated at.
    @inline(__always)
    package var machineTime: Duration { .milliseconds(millisecondsSince1970) }

    /// The instant the statechart layer's `time` since 1970 stands for (a delayed send's due
    /// time), in whole milliseconds; one past the representable range is the first or last
    /// representable timestamp.
    package init(machineTime time: Duration) {
        self.init(millisecondsSince1970: time.wholeMilliseconds)
    }

    /// The instant in whole milliseconds since 1970 (truncated toward zero).
    @inline(__always)
    package var millisecondsSince1970: Int64 { microsecondsSince1970 / 1000 }

    /// The instant `milliseconds` after 1970; one past the representable range is the first or
    /// last representable timestamp.
    package init(millisecondsSince1970 milliseconds: Int64) {
        let (microseconds, overflow) = milliseconds.multipliedReportingOverflow(by: 1000)
        self.init(microsecondsSince1970: overflow ? (milliseconds > 0 ? .max : .min) : microseconds)
    }

    /// The timestamp of `date`, truncated to microseconds.
    public init(_ date: Date) {
        microsecondsSince1970 = Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down))
    }

    /// The current wall-clock time (`clock_gettime(CLOCK_REALTIME)`, no Foundation allocation).
    public static func now() -> Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(microsecondsSince1970: Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1_000)
    }

    /// The instant as a `Date`.
    public var date: Date {
        Date(timeIntervalSince1970: Double(microsecondsSince1970) / 1_000_000)
    }

    /// Orders timestamps chronologically.
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.microsecondsSince1970 < rhs.microsecondsSince1970
    }

    /// The instant in ISO 8601 form.
    public var description: String { date.ISO8601Format() }
}

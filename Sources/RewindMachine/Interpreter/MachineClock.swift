import Foundation
import Synchronization

/// The time source of delayed sends (SCXML `<send delay>`), injectable so tests control it.
///
/// Times are `Duration`s since the clock's own epoch (the system clock's is 1970); only
/// differences matter.
public protocol MachineClock: Sendable {
    /// The current time, as the span since the clock's epoch.
    var now: Duration { get }
}

extension MachineClock {
    /// The current time in whole milliseconds.
    @available(*, deprecated, renamed: "now", message: "the clock's unit is Duration: use now")
    public var nowMilliseconds: Int64 { now.wholeMilliseconds }
}

/// Wall-clock time, in whole milliseconds since 1970.
public struct SystemClock: MachineClock {
    /// Creates the system clock.
    public init() {}

    /// The time since 1970, truncated to whole milliseconds.
    public var now: Duration { .milliseconds(Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))) }
}

/// A clock that moves only when told to: for tests and replays.
public final class ManualClock: MachineClock, Sendable {
    private let time: Mutex<Duration>

    /// Creates a clock at `start` since its epoch.
    public init(at start: Duration = .zero) {
        time = Mutex(start)
    }

    /// Creates a clock at `milliseconds`.
    @available(*, deprecated, renamed: "init(at:)", message: "pass a Duration: ManualClock(at: .milliseconds(n))")
    public convenience init(milliseconds: Int64) {
        self.init(at: .milliseconds(milliseconds))
    }

    /// The clock's current time.
    public var now: Duration {
        time.withLock { $0 }
    }

    /// Moves the clock forward by `duration`.
    public func advance(by duration: Duration) {
        time.withLock { $0 += duration }
    }

    /// Moves the clock forward by `milliseconds`.
    @available(*, deprecated, message: "pass a Duration: advance(by: .milliseconds(n))")
    public func advance(by milliseconds: Int64) {
        advance(by: .milliseconds(milliseconds))
    }
}

import Foundation
import Synchronization

/// The time source of delayed sends (SCXML `<send delay>`), injectable so tests control it.
public protocol MachineClock: Sendable {
    /// The current time in milliseconds; only differences matter.
    var nowMilliseconds: Int64 { get }
}

/// Wall-clock time.
public struct SystemClock: MachineClock {
    /// Creates the system clock.
    public init() {}

    /// Milliseconds since 1970.
    public var nowMilliseconds: Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}

/// A clock that moves only when told to: for tests and replays.
public final class ManualClock: MachineClock, Sendable {
    /// The clock's time, in milliseconds.
    private let now: Mutex<Int64>

    /// Creates a clock at `milliseconds`.
    public init(milliseconds: Int64 = 0) {
        now = Mutex(milliseconds)
    }

    /// The clock's current time.
    public var nowMilliseconds: Int64 {
        now.withLock { $0 }
    }

    /// Moves the clock forward by `milliseconds`.
    public func advance(by milliseconds: Int64) {
        now.withLock { $0 += milliseconds }
    }
}

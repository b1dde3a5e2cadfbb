import Testing

@testable import RewindStore

/// The one conversion between the store's microseconds and the statechart layer's time (a
/// `Duration` since 1970, in whole milliseconds).
@Suite("Timestamp units")
struct TimestampUnitTests {
    @Test func millisecondsAreWholeMillisecondsOfTheMicroseconds() {
        #expect(Timestamp(microsecondsSince1970: 1_234_567).millisecondsSince1970 == 1_234)
        #expect(Timestamp(microsecondsSince1970: 999).millisecondsSince1970 == 0)
        // Truncated toward zero, as the engine has always evaluated steps.
        #expect(Timestamp(microsecondsSince1970: -1_500).millisecondsSince1970 == -1)
    }

    @Test func aDueTimeInMillisecondsBecomesMicrosecondsAndSaturates() {
        #expect(Timestamp(millisecondsSince1970: 1_234) == Timestamp(microsecondsSince1970: 1_234_000))
        #expect(Timestamp(millisecondsSince1970: -7) == Timestamp(microsecondsSince1970: -7_000))
        #expect(Timestamp(millisecondsSince1970: .max) == Timestamp(microsecondsSince1970: .max))
        #expect(Timestamp(millisecondsSince1970: .min) == Timestamp(microsecondsSince1970: .min))
        let edge = Int64.max / 1000
        #expect(Timestamp(millisecondsSince1970: edge).millisecondsSince1970 == edge)
    }

    @Test func machineTimeIsTheWholeMillisecondsAsADuration() {
        #expect(Timestamp(microsecondsSince1970: 1_234_567).machineTime == .milliseconds(1_234))
        #expect(Timestamp(microsecondsSince1970: -1_500).machineTime == .milliseconds(-1))
        #expect(Timestamp(machineTime: .milliseconds(1_234)) == Timestamp(microsecondsSince1970: 1_234_000))
        // A due time finer than a millisecond is truncated; one past the range saturates.
        #expect(Timestamp(machineTime: .microseconds(1_234_999)) == Timestamp(microsecondsSince1970: 1_234_000))
        #expect(Timestamp(machineTime: .seconds(Int64.max)) == Timestamp(microsecondsSince1970: .max))
        #expect(Timestamp(machineTime: .milliseconds(Int64.min)) == Timestamp(microsecondsSince1970: .min))
        let now = Timestamp(microsecondsSince1970: 1_700_000_000_123_456)
        #expect(Timestamp(machineTime: now.machineTime).machineTime == now.machineTime)
    }
}

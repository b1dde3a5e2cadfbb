import RewindValues
import Testing

/// `Duration.wholeMilliseconds`: the one conversion from the public API's `Duration` to the
/// whole milliseconds definitions and machine states persist.
@Suite("Duration in whole milliseconds")
struct DurationMillisecondsTests {
    @Test func truncatesTowardZero() {
        #expect(Duration.milliseconds(1_500).wholeMilliseconds == 1_500)
        #expect(Duration.seconds(2).wholeMilliseconds == 2_000)
        #expect(Duration.microseconds(1_999).wholeMilliseconds == 1)
        #expect(Duration.nanoseconds(999_999).wholeMilliseconds == 0)
        #expect(Duration.microseconds(-1_999).wholeMilliseconds == -1)
        #expect((Duration.milliseconds(-1_500) - .nanoseconds(3)).wholeMilliseconds == -1_500)
        #expect(Duration.zero.wholeMilliseconds == 0)
    }

    @Test func keepsEveryInt64AndSaturatesBeyond() {
        for milliseconds in [Int64.min, Int64.min + 1, -(1 << 53) - 1, (1 << 53) + 1, Int64.max - 1, .max] {
            #expect(Duration.milliseconds(milliseconds).wholeMilliseconds == milliseconds)
        }
        #expect(Duration.seconds(Int64.max).wholeMilliseconds == .max)
        #expect(Duration.seconds(Int64.min).wholeMilliseconds == .min)
        #expect((Duration.milliseconds(Int64.max) + .milliseconds(1)).wholeMilliseconds == .max)
        #expect((Duration.milliseconds(Int64.min) - .milliseconds(1)).wholeMilliseconds == .min)
    }
}

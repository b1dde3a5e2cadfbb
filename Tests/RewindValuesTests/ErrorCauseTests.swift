import RewindValues
import Testing

/// `ErrorCause`: the typed error under a domain error, compared by the error's own equality.
struct ErrorCauseTests {
    private enum Disk: Error, Hashable {
        case full(bytes: Int)
        case gone
    }

    /// Equal descriptions do not make equal errors: `Loose`'s description ignores its code.
    private struct Loose: Error, Equatable, CustomStringConvertible {
        var code: Int
        var description: String { "loose" }
    }

    private struct Plain: Error, CustomStringConvertible {
        var text: String
        var description: String { text }
    }

    @Test func anEquatableErrorIsComparedByItsOwnEquality() {
        #expect(ErrorCause(Disk.full(bytes: 3)) == ErrorCause(Disk.full(bytes: 3)))
        #expect(ErrorCause(Disk.full(bytes: 3)) != ErrorCause(Disk.full(bytes: 4)))
        #expect(ErrorCause(Disk.full(bytes: 3)) != ErrorCause(Disk.gone))
        #expect(ErrorCause(Loose(code: 1)).description == ErrorCause(Loose(code: 2)).description)
        #expect(ErrorCause(Loose(code: 1)) != ErrorCause(Loose(code: 2)), "the same text, different errors")
        #expect(ErrorCause(Loose(code: 1)) == ErrorCause(Loose(code: 1)))
    }

    @Test func errorsOfDifferentTypesDifferEvenWithTheSameText() {
        #expect(ErrorCause(Plain(text: "loose")) != ErrorCause(Loose(code: 1)))
    }

    @Test func anErrorWithoutEqualityIsComparedByTypeAndDescription() {
        #expect(ErrorCause(Plain(text: "a")) == ErrorCause(Plain(text: "a")))
        #expect(ErrorCause(Plain(text: "a")) != ErrorCause(Plain(text: "b")))
    }

    @Test func equalCausesHashEqually() {
        let causes: Set<ErrorCause> = [
            ErrorCause(Disk.full(bytes: 3)), ErrorCause(Disk.full(bytes: 3)), ErrorCause(Disk.gone),
            ErrorCause(Plain(text: "a")), ErrorCause(Plain(text: "a")), ErrorCause(Loose(code: 1)),
            ErrorCause(Loose(code: 2)),
        ]
        #expect(causes.count == 5)
    }

    @Test func theErrorStaysTypedAndCausesDoNotNest() {
        let cause = ErrorCause(ErrorCause(Disk.gone))
        #expect(cause.error as? Disk == .gone)
        #expect(cause.description == "gone")
    }
}

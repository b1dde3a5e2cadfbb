import Foundation
import RewindWire
import Testing

/// Every error answer of the fleet server is `{"error": message, …details}`: the server writes it
/// with ``ErrorAnswer`` and the uploader and the CLI read it with the same type.
@Suite struct ErrorAnswerTests {
    private static func sortedJSON(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func detailsAreKeysBesideTheMessage() throws {
        let answer = ErrorAnswer(
            error: "the batch does not continue the store's log",
            details: ["nextSequence": .integer(41), "recordIndex": .integer(0), "hint": .text("resend from 41")])
        #expect(
            try Self.sortedJSON(answer)
                == #"{"error":"the batch does not continue the store's log","hint":"resend from 41","nextSequence":41,"recordIndex":0}"#
        )
    }

    @Test func anAnswerReadsBackAsItWasWritten() throws {
        let answer = ErrorAnswer(
            error: "no", details: ["sequence": .integer(-3), "offset": .integer(Int64.max), "what": .text("")])
        let read = try JSONDecoder().decode(ErrorAnswer.self, from: Data(try Self.sortedJSON(answer).utf8))
        #expect(read == answer)
        #expect(read.integer("offset") == Int64.max)
        #expect(read.integer("what") == nil)
        #expect(read.integer("absent") == nil)
    }

    @Test func aDetailNamedErrorCannotHideTheMessage() throws {
        let answer = ErrorAnswer(error: "the message", details: ["error": .text("a detail"), "n": .integer(1)])
        #expect(answer.details.keys.sorted() == ["n"])
        #expect(try Self.sortedJSON(answer) == #"{"error":"the message","n":1}"#)
    }

    @Test func valuesThatAreNeitherNumbersNorTextsAreSkippedNotFatal() throws {
        let body = #"{"error":"bad","nested":{"a":1},"list":[1,2],"flag":true,"ratio":0.5,"count":7}"#
        let read = try JSONDecoder().decode(ErrorAnswer.self, from: Data(body.utf8))
        #expect(read.error == "bad")
        #expect(read.details == ["count": .integer(7)])
    }

    @Test func aBodyWithoutAMessageIsNotAnErrorAnswer() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ErrorAnswer.self, from: Data(#"{"nextSequence":4}"#.utf8))
        }
    }
}

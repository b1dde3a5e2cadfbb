import Foundation
import Rewind
import RewindLMDB
@_spi(Internals) import RewindStore
import RewindTestSupport
import Testing

/// Domain errors that wrap another error carry it as a typed value (`cause`), and their
/// descriptions still say what it said.
struct ErrorCauseTests {
    typealias Onboarding = ExampleMachines.Onboarding

    struct Refusal: Error, CustomStringConvertible {
        var description: String { "this payload refuses to be encoded" }
    }

    struct Unencodable: Encodable {
        func encode(to encoder: any Encoder) throws { throw Refusal() }
    }

    @Test func aPayloadThatCannotBeEncodedCarriesTheEncodersError() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        do {
            try await session.send(Onboarding.Event.launch, payload: Unencodable())
            Issue.record("the send should have thrown")
        } catch let EngineError.payloadEncoding(event, cause) {
            #expect(event == "launch")
            #expect(cause.error is Refusal)
            let error = EngineError.payloadEncoding(event: event, cause: cause)
            #expect(error.description.contains("this payload refuses to be encoded"))
        }
        #expect(throws: EngineError.payloadEncoding(event: "start", cause: ErrorCause(Refusal()))) {
            try session.setNeedsTransition("start", payload: Unencodable())
        }
        #expect(session.version == 1)
    }

    @Test func aDirectoryLMDBCannotReadCarriesLMDBsError() throws {
        let directory = try TemporaryDirectory(prefix: "rewind-cause")
        defer { directory.remove() }
        try Data(count: 8192).write(to: URL(fileURLWithPath: directory.path + "/data.mdb"))
        let error = #expect(throws: StoreError.self) { _ = try Engine(directory: directory.path) }
        guard case .notAStore(_, let reason, let cause)? = error else {
            Issue.record("expected notAStore, got \(String(describing: error))")
            return
        }
        let lmdb = try #require(cause?.error as? LMDBError)
        #expect(lmdb.code == .invalid)
        #expect(reason.contains(lmdb.message))
    }

    @Test func anArchiveLineThatDoesNotDecodeCarriesTheReadersError() throws {
        // A well-formed envelope with a correct checksum around a body that is no header.
        let body = Array(#"{"format":"rewind.session","records":"many"}"#.utf8)
        let crc = body.withUnsafeBytes { CRC32C.checksum($0) }
        let digits = String(repeating: "0", count: 8 - String(crc, radix: 16).count) + String(crc, radix: 16)
        let line = #"{"crc32c":""# + digits + #"","body":"# + String(decoding: body, as: UTF8.self) + "}\n"
        let error = #expect(throws: SessionArchiveError.self) { try SessionArchive.validate(Data(line.utf8)) }
        guard case .malformedLine(let number, let reason, let cause)? = error else {
            Issue.record("expected malformedLine, got \(String(describing: error))")
            return
        }
        #expect(number == 1)
        let shape = try #require(cause?.error as? JSONShapeError)
        #expect(shape == JSONShapeError(path: [], expected: "a member 'formatVersion'"))
        #expect(reason.contains("its body does not decode: \(shape)"))
    }
}

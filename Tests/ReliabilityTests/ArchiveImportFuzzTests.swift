import Foundation
import Rewind
@_spi(Internals) import RewindStore
import RewindTestSupport
import Testing

/// Promise 5 for session archives: a truncated, tampered or malformed archive is refused with a
/// typed error naming its line, and nothing is written.
struct ArchiveImportFuzzTests {
    static let envelopeStart = Array(#"{"crc32c":""#.utf8)
    static let envelopeMiddle = Array(#"","body":"#.utf8)

    /// `archive` with every envelope's checksum and the trailer's checksum recomputed, so that a
    /// mutation of a body reaches the checks behind them.
    static func resealed(_ archive: [UInt8]) -> [UInt8] {
        var lines = archive.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        let endsWithNewline = lines.last?.isEmpty == true
        if endsWithNewline { lines.removeLast() }
        let bodyOffset = envelopeStart.count + 8 + envelopeMiddle.count
        func seal(_ line: [UInt8]) -> [UInt8] {
            guard line.count > bodyOffset, line.last == UInt8(ascii: "}"),
                line.starts(with: envelopeStart)
            else { return line }
            let body = Array(line[bodyOffset..<(line.count - 1)])
            let crc = body.withUnsafeBytes { CRC32C.checksum($0) }
            return envelopeStart + Array(hex(crc).utf8) + envelopeMiddle + body + [UInt8(ascii: "}")]
        }
        lines = lines.map(seal)
        // The trailer: the CRC-32C of every line before it, newlines included.
        if let last = lines.indices.last, last > 0, lines[last].count > bodyOffset,
            var trailer = try? JSONSerialization.jsonObject(
                with: Data(lines[last][bodyOffset..<(lines[last].count - 1)])) as? [String: Any],
            trailer["checksum"] != nil
        {
            let covered = lines[..<last].flatMap { $0 + [UInt8(ascii: "\n")] }
            trailer["checksum"] = hex(covered.withUnsafeBytes { CRC32C.checksum($0) })
            if let body = try? JSONSerialization.data(withJSONObject: trailer, options: [.sortedKeys]) {
                lines[last] = seal(
                    envelopeStart + Array("00000000".utf8) + envelopeMiddle + Array(body) + [UInt8(ascii: "}")])
            }
        }
        return lines.flatMap { $0 + [UInt8(ascii: "\n")] }.dropLast(endsWithNewline ? 0 : 1)
    }

    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// `archive` with a line removed, repeated or swapped with another, or cut anywhere.
    static func lineMutation(_ archive: [UInt8], using random: inout SeededRandom) -> [UInt8] {
        var lines = archive.split(separator: UInt8(ascii: "\n")).map(Array.init)
        guard lines.count > 1 else { return archive }
        let index = Int.random(in: 0..<lines.count, using: &random)
        switch Int.random(in: 0..<4, using: &random) {
        case 0: lines.remove(at: index)
        case 1: lines.insert(lines[index], at: Int.random(in: 0...lines.count, using: &random))
        case 2: lines.swapAt(index, Int.random(in: 0..<lines.count, using: &random))
        default:
            let whole = lines.flatMap { $0 + [UInt8(ascii: "\n")] }
            return Array(whole.prefix(Int.random(in: 0..<whole.count, using: &random)))
        }
        return lines.flatMap { $0 + [UInt8(ascii: "\n")] }
    }

    // The limit catches hangs; it is generous for sanitizer builds (about 10x slower).
    @Test(.hangGuard)
    func mutatedArchivesAreRefusedWithTheirLineAndWriteNothing() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: try ExampleScenario.all.map { try $0.machine() })
        defer { engine.close() }
        var seeds: [[UInt8]] = []
        for scenario in ExampleScenario.all {
            let session = try await scenario.begin("seed-\(scenario.name)", in: engine)
            for request in scenario.steps { try await session.run(request) }
            seeds.append(Array(try engine.exportSession(session.id)))
        }
        var bytesMutator = Mutator(seed: 0xA2C_0001)
        var structure = JSONMutator(seed: 0xA2C_0002)
        var random = SeededRandom(seed: 0xA2C_0003)
        var outcomes = (imported: 0, refused: 0)
        var head = try engine.store.headSequence()
        for iteration in 0..<2_000 {
            // CPU-bound: let the other tests (time-limited, sharing the cooperative pool) run.
            if iteration % 50 == 0 { await Task.yield() }
            let seed = seeds[iteration % seeds.count]
            var archive: [UInt8]
            switch iteration % 4 {
            case 0: archive = bytesMutator.mutate(seed)
            case 1: archive = Self.resealed(bytesMutator.mutate(seed))
            case 2: archive = Self.lineMutation(seed, using: &random)
            default:
                // A structural change of one line's body, resealed: reaches the format checks.
                var lines = seed.split(separator: UInt8(ascii: "\n")).map(Array.init)
                let index = Int.random(in: 0..<lines.count, using: &random)
                let bodyOffset = Self.envelopeStart.count + 8 + Self.envelopeMiddle.count
                let body = try structure.mutate(Array(lines[index][bodyOffset..<(lines[index].count - 1)]))
                lines[index] = Array(lines[index][..<bodyOffset]) + body + [UInt8(ascii: "}")]
                archive = Self.resealed(lines.flatMap { $0 + [UInt8(ascii: "\n")] })
            }
            let id = try SessionID("fuzz-\(iteration)")
            // `SessionArchive.validate` refuses what the import refuses, without a store.
            let validated = (try? SessionArchive.validate(Data(archive), as: id)) != nil
            do {
                let info = try await engine.importSession(Data(archive), as: id)
                outcomes.imported += 1
                #expect(validated, "input \(iteration): imported but not valid")
                // Accepted: then it is a whole session, appended after everything else.
                #expect(info.headVersion > 0)
                let newHead = try engine.store.headSequence()
                #expect(newHead == head + info.headVersion, "input \(iteration)")
                head = newHead
            } catch let error as SessionArchiveError {
                outcomes.refused += 1
                #expect(!validated, "input \(iteration): refused but valid: \(error)")
                #expect(error.line != nil, "input \(iteration): \(error)")
                #expect(try engine.store.headSequence() == head, "input \(iteration) wrote records: \(error)")
                #expect(try engine.store.sessionInfo(for: id) == nil, "input \(iteration)")
            } catch {
                Issue.record("input \(iteration): not a SessionArchiveError: \(error)")
                #expect(try engine.store.headSequence() == head, "input \(iteration) wrote records: \(error)")
                head = try engine.store.headSequence()
            }
        }
        print("archive import: \(outcomes.imported) imported, \(outcomes.refused) refused")
        #expect(outcomes.refused > 1_000)
        #expect(try LogAudit(engine.writableStore).problems.isEmpty)
    }

    @Test func anArchiveAnnouncingAbsurdCountsIsRefusedWithoutAllocatingThem() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try TickerMachine.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "small", machine: TickerMachine.name)
        try await session.send(TickerMachine.tick)
        let archive = Array(try engine.exportSession(session.id))
        var lines = archive.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        for claim in ["1152921504606846976", "18446744073709551615", "9223372036854775807"] {
            lines[0] = lines[0].replacingOccurrences(of: #""records":2"#, with: "\"records\":\(claim)")
            let tampered = Self.resealed(Array((lines.joined(separator: "\n") + "\n").utf8))
            await #expect(throws: SessionArchiveError.self, "records: \(claim)") {
                try await engine.importSession(Data(tampered), as: SessionID("absurd"))
            }
            lines = archive.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(try engine.store.headSequence() == 2)
    }
}

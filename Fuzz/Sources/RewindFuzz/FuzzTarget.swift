import Dispatch
import Foundation
import Rewind
@_spi(Internals) import RewindStore

/// What one fuzz input is fed to: its first byte chooses, the rest is the input.
///
/// Every target checks what Rewind promises for hostile input (a typed error, never a crash, a
/// hang or a partial write) and traps, which libFuzzer reports with the input, when it does not
/// hold.
enum FuzzTarget: UInt8, CaseIterable {
    /// `RecordCodec.decode`: a record that decodes must re-encode to the same bytes; otherwise
    /// `StoreError.corruptedRecord` naming the sequence. The input's checksum is recomputed half
    /// the time (second byte even) so that the field parser is reached.
    case recordDecoder
    /// `MachineDefinition(scxml:)`: whatever is accepted round-trips through the JSON document.
    case scxmlImporter
    /// `MachineDefinition(jsonDocument:)`: whatever is accepted round-trips.
    case machineJSON
    /// `Engine.importSession`: a refused archive names its line and writes nothing.
    case archiveImport

    /// Runs `input` through the target.
    func run(_ input: [UInt8]) {
        switch self {
        case .recordDecoder: Self.decodeRecord(input)
        case .scxmlImporter:
            if let definition = try? MachineDefinition(scxml: Data(input)) { Self.checkRoundTrip(definition) }
        case .machineJSON:
            if let definition = try? MachineDefinition(jsonDocument: Data(input)) { Self.checkRoundTrip(definition) }
        case .archiveImport: ArchiveImporter.shared.importArchive(input)
        }
    }

    static func decodeRecord(_ input: [UInt8]) {
        var bytes = input
        if let first = bytes.first, first % 2 == 0, bytes.count > 5 {
            bytes.removeFirst()
            let crc = bytes.dropLast(4).withUnsafeBytes { CRC32C.checksum($0) }
            bytes.replaceSubrange((bytes.count - 4)..., with: withUnsafeBytes(of: crc.littleEndian, Array.init))
        }
        do {
            let record = try RecordCodec.decode(bytes, sequence: 1)
            guard RecordCodec.encode(record) == bytes else { fatalError("a decoded record re-encodes differently") }
        } catch StoreError.corruptedRecord(let sequence, _) {
            guard sequence == 1 else { fatalError("corruptedRecord names sequence \(sequence), not 1") }
        } catch {
            fatalError("untyped record decoding error: \(error)")
        }
    }

    static func checkRoundTrip(_ definition: MachineDefinition) {
        guard let again = try? MachineDefinition(jsonDocument: definition.jsonDocument()),
            again.contentVersion == definition.contentVersion
        else { fatalError("an accepted definition does not survive its own JSON document") }
        _ = try? Machine(definition)
    }
}

/// One engine on a temporary store, kept for the whole fuzzing run.
final class ArchiveImporter: @unchecked Sendable {
    static let shared = ArchiveImporter()

    let engine: Engine
    /// Only touched from the fuzzer's one thread.
    private var imports = 0

    private init() {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("rewind-fuzz-\(ProcessInfo.processInfo.processIdentifier)").path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            engine = try Engine(directory: directory, configuration: EngineConfiguration(durability: .noSync))
        } catch {
            fatalError("cannot open the fuzzing store in \(directory): \(error)")
        }
    }

    func importArchive(_ input: [UInt8]) {
        imports += 1
        let engine = engine
        let id: SessionID
        do { id = try SessionID("fuzz-\(imports)") } catch { fatalError("\(error)") }
        let outcome = Blocking.run { () async -> (any Error)? in
            do {
                _ = try await engine.importSession(Data(input), as: id)
                return nil
            } catch {
                return error
            }
        }
        guard let error = outcome else { return }
        guard let archiveError = error as? SessionArchiveError, archiveError.line != nil else {
            fatalError("an archive refused without a line: \(error)")
        }
        let written = (try? engine.store.sessionInfo(for: id)) ?? nil
        guard written == nil else { fatalError("a refused archive wrote session \(id)") }
    }
}

/// Waits, on the calling (libFuzzer's) thread, for async work.
enum Blocking {
    static func run<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let box = Box<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            box.value = await body()
            done.signal()
        }
        done.wait()
        guard let value = box.value else { fatalError("the task ended without a value") }
        return value
    }

    /// Written by the task before it signals, read after the wait: the semaphore orders them.
    final class Box<T>: @unchecked Sendable {
        var value: T?
    }
}

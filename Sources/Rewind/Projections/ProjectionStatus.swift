import RewindStore

/// Where a projection stands in the log, as stored in its checkpoint.
public struct ProjectionStatus: Sendable, Hashable {
    /// The projection's name.
    public var name: String
    /// The projection version its states were built with.
    public var version: UInt32
    /// The global sequence of the last record applied (0 before the first).
    public var checkpoint: UInt64
    /// Why it stopped, when its last run failed on a record.
    public var failure: ProjectionFailure?

    /// Creates a status.
    public init(name: String, version: UInt32, checkpoint: UInt64, failure: ProjectionFailure? = nil) {
        self.name = name
        self.version = version
        self.checkpoint = checkpoint
        self.failure = failure
    }
}

/// The record a projection failed on, and why.
public struct ProjectionFailure: Sendable, Hashable {
    /// The global sequence of the record (the checkpoint is just before it).
    public var sequence: UInt64
    /// The record's session.
    public var session: SessionID
    /// The error's description.
    public var reason: String

    /// Creates a failure.
    public init(sequence: UInt64, session: SessionID, reason: String) {
        self.sequence = sequence
        self.session = session
        self.reason = reason
    }
}

/// How far a catch-up or rebuild has come, reported after each batch.
public struct ProjectionProgress: Sendable, Hashable {
    /// The projection.
    public var projection: String
    /// Records applied so far by this run.
    public var recordsDone: UInt64
    /// Records this run has to apply in all (from the checkpoint to the head when it started).
    public var recordsTotal: UInt64
    /// Seconds since the run started.
    public var elapsedSeconds: Double

    /// Creates a progress report.
    public init(projection: String, recordsDone: UInt64, recordsTotal: UInt64, elapsedSeconds: Double) {
        self.projection = projection
        self.recordsDone = recordsDone
        self.recordsTotal = recordsTotal
        self.elapsedSeconds = elapsedSeconds
    }

    /// Records per second so far (0 before any time has passed).
    public var recordsPerSecond: Double { elapsedSeconds > 0 ? Double(recordsDone) / elapsedSeconds : 0 }

    /// The fraction done, 0…1 (1 when there was nothing to do).
    public var fractionDone: Double { recordsTotal == 0 ? 1 : min(1, Double(recordsDone) / Double(recordsTotal)) }
}

/// The stored form of a ``ProjectionStatus`` (the value under the projection's name in the
/// `checkpoints` database): format byte 1, version (UInt32 big-endian), checkpoint (UInt64
/// big-endian), a failure flag byte, and when flagged the failure's sequence (varint), session
/// and reason (strings).
enum CheckpointCodec {
    static func encode(_ status: ProjectionStatus) -> [UInt8] {
        var writer = StateWriter()
        writer.byte(1)
        writer.bigEndian(status.version)
        writer.bigEndian(status.checkpoint)
        if let failure = status.failure {
            writer.byte(1)
            writer.varint(failure.sequence)
            writer.string(failure.session.rawValue)
            writer.string(failure.reason)
        } else {
            writer.byte(0)
        }
        return writer.bytes
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, name: String) throws -> ProjectionStatus {
        do {
            var reader = StateReader(bytes)
            let format = try reader.byte()
            guard format == 1 else { throw StateDecodingError("unknown checkpoint format \(format)") }
            let version = try reader.bigEndianUInt32()
            let checkpoint = try reader.bigEndianUInt64()
            var failure: ProjectionFailure?
            if try reader.byte() != 0 {
                let sequence = try reader.varint()
                let session = try reader.string()
                guard let id = try? SessionID(session) else { throw StateDecodingError("invalid session id") }
                failure = ProjectionFailure(sequence: sequence, session: id, reason: try reader.string())
            }
            try reader.expectEnd()
            return ProjectionStatus(name: name, version: version, checkpoint: checkpoint, failure: failure)
        } catch let error as StateDecodingError {
            throw ProjectionError.corruptedCheckpoint(projection: name, reason: error.reason)
        }
    }
}

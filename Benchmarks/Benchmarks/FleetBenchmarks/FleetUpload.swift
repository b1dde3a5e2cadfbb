import BenchmarkSupport
import Foundation
import RewindServer

/// The fleet's uploads: every device sends its whole log in RWB1 batches (`IngestionBatch`,
/// encoded once, before timing: only the store id in the URL changes between runs) to
/// `POST /v1/stores/{id}/records`, one keep-alive connection and one thread per device, all
/// devices at once; each device sends its next batch when the previous one was answered.
struct FleetUpload: Sendable {
    /// Each device's batch bodies, in order, with their record counts.
    let bodies: [[(body: [UInt8], records: Int)]]
    /// The records per batch.
    let batchSize: Int

    init(devices: [FleetDevice], batchSize: Int) {
        self.batchSize = batchSize
        bodies = devices.map { device in device.batches(size: batchSize).map { ($0.encoded(), $0.records.count) } }
    }

    /// The number of records one run uploads.
    var recordCount: Int { bodies.reduce(0) { $0 + $1.reduce(0) { $0 + $1.records } } }

    /// What one run measured.
    struct Run: Sendable {
        /// Seconds from the first connection to the last answer.
        var seconds: Double
        /// Each batch's latency, request sent to response read, in nanoseconds.
        var batchNanoseconds: [Int]
    }

    /// An answer other than the expected 200.
    struct UnexpectedAnswer: Error, CustomStringConvertible {
        let description: String
    }

    private struct Answer: Decodable {
        var nextSequence: UInt64
        var stored: Int
    }

    /// Uploads every device's log to `server` under `storeIDs` (one per device, new to the
    /// server), checking that each answer is 200 and stored the whole batch.
    func run(server: FleetServer, storeIDs: [UUID]) async throws -> Run {
        let port = server.port
        let authorization = "Bearer \(server.app.ingestKey.token)"
        let clock = ContinuousClock()
        let start = clock.now
        let latencies = try await withThrowingTaskGroup(of: [Int].self) { group in
            for (batches, storeID) in zip(bodies, storeIDs) {
                group.addTask {
                    try await onThread {
                        let connection = try LoopbackConnection(port: port)
                        let path = "/v1/stores/\(storeID.uuidString)/records"
                        let headers = [("Authorization", authorization), ("Content-Type", IngestionBatch.mediaType)]
                        var latencies: [Int] = []
                        var next: UInt64 = 1
                        for (body, records) in batches {
                            let sent = clock.now
                            let response = try connection.request("POST", path, headers: headers, body: body)
                            latencies.append(clock.now.nanoseconds(since: sent))
                            guard response.status == 200 else {
                                throw UnexpectedAnswer(
                                    description:
                                        "store \(storeID), batch at \(next): \(response.status) \(response.text)")
                            }
                            let answer = try JSONDecoder().decode(Answer.self, from: Data(response.body))
                            next += UInt64(records)
                            guard answer.stored == records, answer.nextSequence == next else {
                                throw UnexpectedAnswer(
                                    description:
                                        "store \(storeID): stored \(answer.stored) of \(records), next \(answer.nextSequence) (expected \(next))"
                                )
                            }
                        }
                        return latencies
                    }
                }
            }
            var all: [Int] = []
            for try await latencies in group { all += latencies }
            return all
        }
        return Run(seconds: start.duration(to: clock.now).seconds, batchNanoseconds: latencies)
    }
}

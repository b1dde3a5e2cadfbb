import RewindBaseTestSupport
import RewindStore
import Testing

@Suite("Appends")
struct AppendTests {
    @Test func sequencesAreGlobalAndGapFreeAndVersionsPerSession() throws {
        try withStore { store, _ throws in
            let a = try session("a")
            let b = try session("b")
            let first = try store.append(onboarding, to: a)
            let second = try store.append(Array(onboarding.prefix(1)), to: b)
            let third = try store.append(Array(onboarding.suffix(1)), to: a)
            #expect([first.firstSequence, first.lastSequence] == [1, 3])
            #expect([first.firstVersion, first.lastVersion] == [1, 3])
            #expect([second.firstSequence, second.firstVersion] == [2 + 2, 1])
            #expect([third.firstSequence, third.firstVersion, third.lastVersion] == [5, 4, 4])
        }
    }

    @Test func expectedVersionExactNoStreamAndAny() throws {
        try withStore { store, _ throws in
            let s = try session("s")
            try store.append(onboarding, to: s, expectedVersion: .noStream)
            #expect(throws: StoreError.versionConflict(session: s, expected: .noStream, actual: 3)) {
                try store.append(onboarding, to: s, expectedVersion: .noStream)
            }
            #expect(throws: StoreError.versionConflict(session: s, expected: .exact(2), actual: 3)) {
                try store.append(onboarding, to: s, expectedVersion: .exact(2))
            }
            try store.append(onboarding, to: s, expectedVersion: .exact(3))
            try store.append(onboarding, to: s, expectedVersion: .any)
            #expect(try store.sessionInfo(for: s)?.headVersion == 9)
            let fresh = try session("fresh")
            #expect(throws: StoreError.versionConflict(session: fresh, expected: .exact(1), actual: 0)) {
                try store.append(onboarding, to: fresh, expectedVersion: .exact(1))
            }
            try store.append(onboarding, to: fresh, expectedVersion: .exact(0))
        }
    }

    @Test func aVersionConflictWritesNothing() throws {
        try withStore { store, _ throws in
            let s = try session("s")
            try store.append(onboarding, to: s)
            let error = #expect(throws: StoreError.self) {
                try store.append(onboarding, to: s, expectedVersion: .exact(1))
            }
            #expect(error?.description.contains("'s'") == true)
            #expect(error?.description.contains("exact(1)") == true)
            #expect(error?.description.contains("actual version 3") == true)
            #expect(try store.headSequence() == 3)
            #expect(try store.records(of: s).count == 3)
        }
    }

    @Test func aBatchWithOneBadRecordWritesNothing() throws {
        try withStore { store, _ throws in
            let a = try session("a")
            let b = try session("b")
            var bad = onboarding
            bad[1].event = ""
            let error = #expect(throws: StoreError.self) {
                try store.append([
                    SessionAppend(session: a, transitions: onboarding),
                    SessionAppend(session: b, transitions: bad),
                ])
            }
            #expect(error == .invalidTransition(session: b, index: 1, reason: "the event name is empty"))
            #expect(try store.headSequence() == 0)
            #expect(try store.sessions().isEmpty)
        }
    }

    @Test func aBatchWithAConflictInItsLastSessionWritesNothing() throws {
        try withStore { store, _ throws in
            let a = try session("a")
            let b = try session("b")
            try store.append(onboarding, to: b)
            #expect(throws: StoreError.self) {
                try store.append([
                    SessionAppend(session: a, expectedVersion: .noStream, transitions: onboarding),
                    SessionAppend(session: b, expectedVersion: .noStream, transitions: onboarding),
                ])
            }
            #expect(try store.headSequence() == 3)
            #expect(try store.sessionInfo(for: a) == nil)
        }
    }

    @Test func aBatchAppendsManySessionsInOneTransaction() throws {
        try withStore { store, _ throws in
            let ids = try (0..<5).map { try session("user-\($0)") }
            let results = try store.append(
                ids.map { SessionAppend(session: $0, expectedVersion: .noStream, transitions: onboarding) })
            #expect(results.map(\.firstSequence) == [1, 4, 7, 10, 13])
            #expect(try store.sessions().map(\.session) == ids)
        }
    }

    @Test func aFailedSessionAppendLeavesTheGroupTransactionUsable() throws {
        try withStore { store, _ throws in
            let a = try session("a")
            let b = try session("b")
            let c = try session("c")
            try store.append(onboarding, to: b)
            var rejected: [StoreError] = []
            try store.write { tx throws in
                try tx.append(onboarding, to: a, expectedVersion: .noStream)
                do {
                    try tx.append(onboarding, to: b, expectedVersion: .noStream)
                } catch let error as StoreError {
                    rejected.append(error)
                }
                do {
                    try tx.append([], to: c)
                } catch let error as StoreError {
                    rejected.append(error)
                }
                try tx.append(onboarding, to: c, expectedVersion: .noStream)
            }
            #expect(
                rejected == [.versionConflict(session: b, expected: .noStream, actual: 3), .emptyAppend(session: c)])
            #expect(try store.headSequence() == 9)
            #expect(try store.records(of: a).map(\.sequence) == [4, 5, 6])
            #expect(try store.records(of: c).map(\.sequence) == [7, 8, 9])
            #expect(try store.sessionInfo(for: b)?.headVersion == 3)
        }
    }

    @Test func sessionInfoTracksHeadMachineCountTimesAndOrigin() throws {
        try withStore { store, _ throws in
            let fork = try session("fork")
            var first = step("start", from: [], to: ["a"], at: 100)
            first.origin = RecordOrigin(session: try session("parent"), version: 7)
            var second = step("go", from: ["a"], to: ["b"], at: 250)
            second.machine = "checkout"
            try store.append([first], to: fork)
            try store.append([second], to: fork)
            let info = try #require(try store.sessionInfo(for: fork))
            #expect(info.headVersion == 2)
            #expect(info.headSequence == 2)
            #expect(info.recordCount == 2)
            #expect(info.machine == "checkout")
            #expect(info.created == Timestamp(microsecondsSince1970: 100))
            #expect(info.updated == Timestamp(microsecondsSince1970: 250))
            #expect(info.origin == RecordOrigin(session: try session("parent"), version: 7))
        }
    }

    @Test func invalidTransitionsAreRejectedWithTheirIndex() throws {
        try withStore { store, _ throws in
            let s = try session("s")
            var noMachine = onboarding[0]
            noMachine.machine = ""
            var noTarget = onboarding[0]
            noTarget.target = []
            #expect(throws: StoreError.invalidTransition(session: s, index: 0, reason: "the machine name is empty")) {
                try store.append([noMachine], to: s)
            }
            #expect(
                throws: StoreError.invalidTransition(
                    session: s, index: 2, reason: "the target state configuration is empty")
            ) {
                try store.append([onboarding[0], onboarding[1], noTarget], to: s)
            }
            #expect(throws: StoreError.emptyAppend(session: s)) { try store.append([], to: s) }
            #expect(try store.headSequence() == 0)
        }
    }

    /// Records encoded in the space LMDB reserves, from one byte of payload to many overflow
    /// pages, while the map grows under them (the attempt that hit the full map is run again).
    @Test func recordsOfEverySizeAreReservedInPlaceAcrossMapGrowth() throws {
        let tiny = StoreConfiguration(environment: EnvironmentConfiguration(mapSize: 64 << 10, options: .noSync))
        try withStore(configuration: tiny) { store, directory in
            var random = SeededRandom(seed: 3)
            var expected: [[UInt8]] = []
            for round in 0..<12 {
                let size = [1, 2000, 4090, 70_000, 300_000][round % 5]
                let payload = (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
                expected.append(payload)
                try store.append([step("big", from: ["a"], to: ["a"], payload: payload)], to: try session("s"))
            }
            #expect(try store.records().map(\.payload) == expected)
            let fresh = try TransitionStore(directory: directory.path)
            defer { fresh.close() }
            #expect(try fresh.records(of: try session("s")).map(\.payload) == expected)
        }
    }
}

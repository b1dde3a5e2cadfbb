import RewindLMDB
import Testing

@Suite("Cursors and ranges")
struct CursorTests {
    /// A database holding keys 10, 20, …, 100 (big-endian) with the value = key / 10.
    func withTens(_ body: (Environment, Database) throws -> Void) throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let env = try Environment(directory: directory.path)
        defer { env.close() }
        let db = try env.database(named: "tens")
        try env.write { txn in
            for i in 1...10 as ClosedRange<UInt64> { try txn.put([UInt8(i)], forKey: (i * 10).key, in: db) }
        }
        try body(env, db)
    }

    func number(_ key: UnsafeRawBufferPointer) -> UInt64 {
        UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
    }

    @Test func cursorMovesFirstLastNextPrevious() throws {
        try withTens { env, db in
            let visited = try env.read { txn in
                try txn.withCursor(on: db) { cursor -> [UInt64] in
                    var keys: [UInt64] = []
                    func current() throws -> UInt64 { try cursor.withCurrent { key, _ in number(key) } ?? 0 }
                    #expect(try cursor.first())
                    keys.append(try current())
                    #expect(try cursor.next())
                    keys.append(try current())
                    #expect(try cursor.last())
                    keys.append(try current())
                    #expect(try cursor.previous())
                    keys.append(try current())
                    #expect(try cursor.last())
                    #expect(try !cursor.next())
                    #expect(try cursor.currentKey == nil)
                    return keys
                }
            }
            #expect(visited == [10, 20, 100, 90])
        }
    }

    @Test func seekFindsTheKeyOrTheNextGreater() throws {
        try withTens { env, db in
            try env.read { txn in
                try txn.withCursor(on: db) { cursor throws in
                    #expect(try cursor.seek(to: UInt64(30).key))
                    #expect(try cursor.currentValue == [3])
                    #expect(try cursor.seek(to: UInt64(31).key))
                    #expect(try cursor.currentValue == [4])
                    #expect(try !cursor.seek(to: UInt64(101).key))
                    #expect(try cursor.seek(toLastAtOrBefore: UInt64(39).key))
                    #expect(try cursor.currentValue == [3])
                    #expect(try !cursor.seek(toLastAtOrBefore: UInt64(5).key))
                }
            }
        }
    }

    @Test func seekExactlyFindsOnlyTheKeyItself() throws {
        try withTens { env, db in
            try env.read { txn in
                try txn.withCursor(on: db) { cursor throws in
                    func seek(_ number: UInt64) throws -> Bool {
                        try number.key.withUnsafeBytes { try cursor.seek(exactly: $0) }
                    }
                    #expect(try seek(30))
                    #expect(try cursor.currentValue == [3])
                    #expect(try !seek(31))
                    #expect(try cursor.currentKey == nil)
                    #expect(try seek(100))
                    #expect(try cursor.currentValue == [10])
                    #expect(try !seek(5))
                    #expect(try !seek(101))
                }
            }
        }
    }

    /// Keys on many leaf pages, sought in turn from one cursor in every order a walk may take
    /// (ascending, descending, jumping between pages): each seek lands on its own key, whether
    /// LMDB finds it on the cursor's page or descends the tree again.
    @Test func seekExactlyFromOneCursorAcrossPages() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let env = try Environment(directory: directory.path)
        defer { env.close() }
        let db = try env.database(named: "many")
        let count: UInt64 = 3_000
        try env.write { txn in
            for i in 1...count { try txn.put(Array("value \(i)".utf8), forKey: (i * 2).key, in: db) }
        }
        let ascending = Array(1...count)
        var jumping: [UInt64] = []
        for i in 0..<count { jumping.append((i * 1_237) % count + 1) }
        for order in [ascending, ascending.reversed(), jumping] {
            let found = try env.read { txn in
                try txn.withCursor(on: db) { cursor in
                    try order.map { i -> String? in
                        guard try (i * 2).key.withUnsafeBytes({ try cursor.seek(exactly: $0) }) else { return nil }
                        // An odd key lies between two even ones and is never found.
                        #expect(try !(i * 2 + 1).key.withUnsafeBytes({ try cursor.seek(exactly: $0) }))
                        guard try (i * 2).key.withUnsafeBytes({ try cursor.seek(exactly: $0) }) else { return nil }
                        return try cursor.withCurrent { _, value in String(decoding: value, as: UTF8.self) }
                    }
                }
            }
            #expect(found == order.map { "value \($0)" })
        }
    }

    @Test func forwardRangeStartsAtTheFirstKeyNotLessThanStart() throws {
        try withTens { env, db in
            var keys: [UInt64] = []
            try env.read { txn in
                try txn.forEach(in: db, from: UInt64(35).key) { key, _ in
                    keys.append(number(key))
                    return keys.count < 3 ? .next : .stop
                }
            }
            #expect(keys == [40, 50, 60])
        }
    }

    @Test func backwardRangeStartsAtTheLastKeyNotGreaterThanStart() throws {
        try withTens { env, db in
            var fromMiddle: [UInt64] = []
            var fromExact: [UInt64] = []
            var fromEnd: [UInt64] = []
            try env.read { txn in
                try txn.forEach(in: db, from: UInt64(35).key, direction: .backward) { key, _ in
                    fromMiddle.append(number(key))
                    return .next
                }
                try txn.forEach(in: db, from: UInt64(100).key, direction: .backward) { key, _ in
                    fromExact.append(number(key))
                    return fromExact.count < 2 ? .next : .stop
                }
                try txn.forEach(in: db, from: UInt64(1000).key, direction: .backward) { key, _ in
                    fromEnd.append(number(key))
                    return .stop
                }
            }
            #expect(fromMiddle == [30, 20, 10])
            #expect(fromExact == [100, 90])
            #expect(fromEnd == [100])
        }
    }

    @Test func wholeRangeBothWaysAndAnEmptyDatabase() throws {
        try withTens { env, db in
            let empty = try env.database(named: "empty")
            var forward: [UInt64] = []
            var backward: [UInt64] = []
            var emptyVisits = 0
            try env.read { txn in
                try txn.forEach(in: db) { key, _ in
                    forward.append(number(key))
                    return .next
                }
                try txn.forEach(in: db, direction: .backward) { key, _ in
                    backward.append(number(key))
                    return .next
                }
                try txn.forEach(in: empty) { _, _ in
                    emptyVisits += 1
                    return .next
                }
            }
            #expect(forward == (1...10).map { UInt64($0 * 10) })
            #expect(backward == forward.reversed())
            #expect(emptyVisits == 0)
        }
    }
}

import BenchmarkSupport
import CLMDBBench
import Foundation
@_spi(Internals) import RewindStore

/// The physical limit: LMDB's C API called directly, appending values of a record's size under
/// 8-byte big-endian keys with `MDB_APPEND`, `batch` puts per write transaction. Opened like the
/// store's environment (`MDB_NOTLS`, a named database), optionally with `MDB_NOSYNC` or
/// `MDB_NOMETASYNC`, and `MDB_WRITEMAP` (the store itself opens with a writable map on Linux).
final class RawLMDBLog {
    private var environment: OpaquePointer?
    private var database: MDB_dbi = 0
    private var nextKey: UInt64 = 1
    private var value: [UInt8]
    let directory: ScratchDirectory
    /// The durability this log was opened with and checked against (its environment's flags).
    let configuration: BaselineConfiguration

    /// `noMetaSync`: `MDB_NOMETASYNC` (the data synced per commit, not the meta page; ignored with
    /// `noSync`, which LMDB lets win). `reservedMap`: with `writeMap`, a map of that many bytes
    /// allocated on disk (`posix_fallocate`) before the first commit, as the store reserves its own
    /// (instead of LMDB's sparse file of 8 GiB).
    init(recordSize: Int, noSync: Bool, noMetaSync: Bool = false, writeMap: Bool = false, reservedMap: Int? = nil)
        throws
    {
        directory = try ScratchDirectory("raw-lmdb")
        value = (0..<recordSize).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Self.check(mdb_env_create(&environment), "mdb_env_create")
        try Self.check(mdb_env_set_mapsize(environment, reservedMap ?? 8 << 30), "mdb_env_set_mapsize")
        try Self.check(mdb_env_set_maxdbs(environment, 16), "mdb_env_set_maxdbs")
        var flags = UInt32(MDB_NOTLS)
        if noSync { flags |= UInt32(MDB_NOSYNC) } else if noMetaSync { flags |= UInt32(MDB_NOMETASYNC) }
        if writeMap { flags |= UInt32(MDB_WRITEMAP) }
        try Self.check(mdb_env_open(environment, directory.path, flags, 0o644), "mdb_env_open")
        configuration = noSync ? .rawLMDBNoSync : noMetaSync ? .rawLMDBNoMetaSync : .rawLMDBSynced
        try configuration.verify(environment: environment, writeMap: writeMap)
        if let reservedMap {
            var descriptor: Int32 = -1
            try Self.check(mdb_env_get_fd(environment, &descriptor), "mdb_env_get_fd")
            try Self.check(posix_fallocate(descriptor, 0, off_t(reservedMap)), "posix_fallocate")
            // Read back: the file's allocated blocks cover the map.
            var status = stat()
            guard fstat(descriptor, &status) == 0, Int(status.st_blocks) * 512 >= reservedMap else {
                throw RawLMDBError(
                    operation: "posix_fallocate (read back: \(Int(status.st_blocks) * 512) bytes allocated)", code: EIO)
            }
            print(
                "baseline check: \(configuration.rawValue) with a reserved map: \(Int(status.st_blocks) * 512) bytes allocated for a map of \(reservedMap)"
            )
        }
        var transaction: OpaquePointer?
        try Self.check(mdb_txn_begin(environment, nil, 0, &transaction), "mdb_txn_begin")
        try Self.check(mdb_dbi_open(transaction, "log", UInt32(MDB_CREATE), &database), "mdb_dbi_open")
        try Self.check(mdb_txn_commit(transaction), "mdb_txn_commit")
    }

    /// `records` appended values, `batch` per write transaction (the last one may hold fewer).
    func append(records: Int, batch: Int) throws {
        var remaining = records
        while remaining > 0 {
            let count = min(batch, remaining)
            try append(batch: count)
            remaining -= count
        }
    }

    /// One write transaction with `batch` appended values, committed (and synced unless `MDB_NOSYNC`).
    func append(batch: Int) throws {
        var transaction: OpaquePointer?
        try Self.check(mdb_txn_begin(environment, nil, 0, &transaction), "mdb_txn_begin")
        let count = value.count
        try value.withUnsafeMutableBytes { bytes in
            for _ in 0..<batch {
                var key = nextKey.bigEndian
                try withUnsafeMutableBytes(of: &key) { keyBytes in
                    var keyValue = MDB_val(mv_size: 8, mv_data: keyBytes.baseAddress)
                    var dataValue = MDB_val(mv_size: count, mv_data: bytes.baseAddress)
                    let code = mdb_put(transaction, database, &keyValue, &dataValue, UInt32(MDB_APPEND))
                    if code != 0 {
                        mdb_txn_abort(transaction)
                        throw RawLMDBError(operation: "mdb_put", code: code)
                    }
                }
                nextKey += 1
            }
        }
        try Self.check(mdb_txn_commit(transaction), "mdb_txn_commit")
    }

    /// Reads every value with one cursor in one read transaction, appending each value's bytes
    /// to `sink` (a copy out of the map, as a reader keeping what it read must make); returns how
    /// many values it read.
    func readAll(into sink: inout [UInt8]) throws -> Int {
        try forEachValue { _, value in sink.append(contentsOf: value) }
    }

    /// Calls `body` with each key and value, in order, with one cursor in one read transaction;
    /// returns how many values it read.
    private func forEachValue(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        var transaction: OpaquePointer?
        try Self.check(mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &transaction), "mdb_txn_begin")
        defer { mdb_txn_abort(transaction) }
        var cursor: OpaquePointer?
        try Self.check(mdb_cursor_open(transaction, database, &cursor), "mdb_cursor_open")
        defer { mdb_cursor_close(cursor) }
        var key = MDB_val()
        var data = MDB_val()
        var count = 0
        var code = mdb_cursor_get(cursor, &key, &data, MDB_FIRST)
        while code == 0 {
            try body(
                UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size),
                UnsafeRawBufferPointer(start: data.mv_data, count: data.mv_size))
            count += 1
            code = mdb_cursor_get(cursor, &key, &data, MDB_NEXT)
        }
        guard code == MDB_NOTFOUND else { throw RawLMDBError(operation: "mdb_cursor_get", code: code) }
        return count
    }

    /// One write transaction appending `values`, each under its sequence (increasing), as a
    /// store's log holds its records.
    func append(values: [(sequence: UInt64, bytes: [UInt8])]) throws {
        var transaction: OpaquePointer?
        try Self.check(mdb_txn_begin(environment, nil, 0, &transaction), "mdb_txn_begin")
        for (sequence, bytes) in values {
            var key = sequence.bigEndian
            var bytes = bytes
            let code = withUnsafeMutableBytes(of: &key) { keyBytes in
                bytes.withUnsafeMutableBytes { valueBytes in
                    var keyValue = MDB_val(mv_size: 8, mv_data: keyBytes.baseAddress)
                    var dataValue = MDB_val(mv_size: valueBytes.count, mv_data: valueBytes.baseAddress)
                    return mdb_put(transaction, database, &keyValue, &dataValue, UInt32(MDB_APPEND))
                }
            }
            if code != 0 {
                mdb_txn_abort(transaction)
                throw RawLMDBError(operation: "mdb_put", code: code)
            }
        }
        try Self.check(mdb_txn_commit(transaction), "mdb_txn_commit")
    }

    /// Reads every value as ``readAll(into:)`` does, checking each as a store's record of the
    /// sequence its key holds (`RecordCodec.check`) before copying it out: the floor of an export
    /// that refuses a damaged record; returns how many values it read.
    func readAllCheckingRecords(into sink: inout [UInt8]) throws -> Int {
        try forEachValue { key, value in
            guard key.count == 8 else { throw RawLMDBError(operation: "a log key of \(key.count) bytes", code: EINVAL) }
            try RecordCodec.check(value, sequence: UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)))
            sink.append(contentsOf: value)
        }
    }

    func close() {
        mdb_env_close(environment)
        environment = nil
        directory.remove()
    }

    private static func check(_ code: Int32, _ operation: String) throws {
        if code != 0 { throw RawLMDBError(operation: operation, code: code) }
    }
}

/// A raw LMDB call failed.
struct RawLMDBError: Error, CustomStringConvertible {
    let operation: String
    let code: Int32
    var description: String { "\(operation) failed: \(String(cString: mdb_strerror(code))) (\(code))" }
}

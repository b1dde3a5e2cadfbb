import Foundation
import RewindLMDB
@_spi(Internals) import RewindStore

/// Makes a store look as one written before new session ids were refused control characters:
/// every key and value of every database holding `placeholder`'s bytes gets `replacement`'s
/// (of the same length) instead, and the log records changed get their checksums again. The
/// store itself refuses to create such a session now, so no command can make one.
enum LegacyStore {
    /// Replaces `placeholder` by `replacement` in every database of the store in `directory`.
    static func rewrite(store directory: String, replacing placeholder: String, with replacement: String) throws {
        let from = Array(placeholder.utf8)
        let to = Array(replacement.utf8)
        precondition(from.count == to.count, "the replacement must keep every key's and value's length")
        let environment = try Environment(
            directory: directory, configuration: EnvironmentConfiguration(maxDatabases: 64))
        defer { environment.close() }
        let main = try environment.database(named: nil, create: false)
        var names: [String] = []
        try environment.read { transaction in
            try transaction.forEach(in: main) { key, _ in
                names.append(String(decoding: key, as: UTF8.self))
                return .next
            }
        }
        let databases = try environment.databases(named: names, create: false)
        try environment.write { transaction in
            for (name, database) in databases {
                var changed: [(old: [UInt8], key: [UInt8], value: [UInt8])] = []
                try transaction.forEach(in: database) { key, value in
                    let (newKey, newValue) = (
                        replacing(from, with: to, in: Array(key)), replacing(from, with: to, in: Array(value))
                    )
                    if newKey != Array(key) || newValue != Array(value) {
                        changed.append((Array(key), newKey, newValue))
                    }
                    return .next
                }
                for entry in changed {
                    var value = entry.value
                    if name == StoreLayout.log {
                        let checksum = CRC32C.checksum(Array(value.dropLast(4)))
                        withUnsafeBytes(of: checksum.littleEndian) {
                            value.replaceSubrange((value.count - 4)..., with: $0)
                        }
                    }
                    _ = try transaction.delete(entry.old, in: database)
                    try transaction.put(value, forKey: entry.key, in: database)
                }
            }
        }
    }

    /// `bytes` with every occurrence of `from` replaced by `to`.
    private static func replacing(_ from: [UInt8], with to: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= from.count else { return bytes }
        var result = bytes
        var index = 0
        while index + from.count <= result.count {
            if result[index..<(index + from.count)].elementsEqual(from) {
                result.replaceSubrange(index..<(index + from.count), with: to)
                index += from.count
            } else {
                index += 1
            }
        }
        return result
    }
}

import Foundation
import Rewind
import RewindLMDB

/// `RewindTestHelper grow <environment> <map-size> <go-file>`
///
/// Opens the LMDB environment in `<environment>` with a writable map of `<map-size>` bytes and
/// prints `opened <map size>`; once `<go-file>` exists, commits 4 KiB values one transaction at a
/// time until its map has grown, prints `grew <map size>` and closes.
enum GrowMode {
    static let name = "grow"

    static func run(arguments: [String]) throws {
        guard arguments.count == 3, let mapSize = Int(arguments[1]) else {
            throw HelperFailure(message: "usage: RewindTestHelper grow <environment> <map-size> <go-file>")
        }
        let environment = try Environment(
            directory: arguments[0], configuration: EnvironmentConfiguration(mapSize: mapSize, options: .writeMap))
        defer { environment.close() }
        let database = try environment.database(named: "helper")
        let opened = try environment.statistics().mapSize
        let writer = LineWriter()
        writer.write("opened \(opened)\n")
        while !FileManager.default.fileExists(atPath: arguments[2]) { usleep(2_000) }
        let value = [UInt8](repeating: 0xC3, count: 4096)
        var key: UInt64 = 0
        while try environment.statistics().mapSize <= opened {
            key += 1
            try environment.write {
                try $0.put(value, forKey: withUnsafeBytes(of: key.bigEndian) { Array($0) }, in: database)
            }
        }
        writer.write("grew \(try environment.statistics().mapSize)\n")
    }
}

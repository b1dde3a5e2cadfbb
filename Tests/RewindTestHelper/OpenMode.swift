import Foundation
import Rewind

/// `RewindTestHelper open <store> <map-size>`
///
/// Opens the store with a map of `<map-size>` bytes (as a second process configured with a smaller
/// map than the store has grown to would), prints `opened <map size in effect>` and closes it.
enum OpenMode {
    static let name = "open"

    static func run(arguments: [String]) throws {
        guard arguments.count == 2, let mapSize = Int(arguments[1]) else {
            throw HelperFailure(message: "usage: RewindTestHelper open <store> <map-size>")
        }
        let store = try TransitionStore(
            directory: arguments[0],
            configuration: StoreConfiguration(environment: EnvironmentConfiguration(mapSize: mapSize)))
        defer { store.close() }
        print("opened \(try store.statistics().mapSize)")
    }
}

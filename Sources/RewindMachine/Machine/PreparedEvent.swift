import Foundation
import Synchronization

/// An event resolved once against a machine's table of precomputed outcomes, like a prepared
/// statement: ``Machine/send(_:in:now:)-(PreparedEvent,_,_)`` then evaluates it by looking the
/// active configuration up instead of running the SCXML algorithm.
///
/// Make one with ``Machine/prepare(_:)`` (or ``Machine/prepare(_:payload:)``) and reuse it for
/// every send of that event. An event the machine's transitions name, without payload, is held
/// as numbers only (its interned name, its column, the table's serial number), so copying it
/// costs nothing; other events hold a reference to a box. A prepared event works with the
/// machine that prepared it and that machine's copies; given to another machine, it is sent
/// through the general algorithm.
public struct PreparedEvent: Hashable, Sendable {
    /// How the event is kept.
    enum Storage: Sendable {
        /// A name without payload, interned in ``PreparedEvent/names`` (no reference to copy).
        case name(Int32)
        /// Any other event.
        case event(Box)
    }

    /// An event, boxed.
    final class Box: Sendable {
        let event: Event
        init(_ event: Event) { self.event = event }
    }

    let storage: Storage
    /// The serial number of the table it was prepared against.
    let table: UInt64
    /// The event's column in the table; `-1` when the general algorithm always runs for it (the
    /// event has a payload, or a name that only some descriptors match by prefix).
    let column: Int32

    /// The event.
    public var event: Event {
        switch storage {
        case .name(let name): return Event(Self.names.name(name))
        case .event(let box): return box.event
        }
    }

    /// Whether sends of this event may use the precomputed table: `false` when the event carries
    /// a payload (it becomes the entered states' data and guards may read it) or when its name
    /// has no column of its own (for example `"a.b"` when transitions name `"a"`); such an event
    /// always takes the general algorithm.
    public var isPrecomputed: Bool { column >= 0 }

    /// Prepares `event`, whose column in the table `table` is `column`; `interned` says whether
    /// the name is one the chart declares (so the set of interned names stays bounded).
    init(event: Event, table: UInt64, column: Int32, interned: Bool) {
        if interned, event.payload.isNull {
            storage = .name(Self.names.intern(event.name))
        } else {
            storage = .event(Box(event))
        }
        self.table = table
        self.column = column
    }

    /// Prepared events are equal when they are the same event prepared for the same machine.
    public static func == (lhs: PreparedEvent, rhs: PreparedEvent) -> Bool {
        lhs.table == rhs.table && lhs.column == rhs.column && lhs.event == rhs.event
    }

    /// Hashes the event and the machine's table.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(event)
        hasher.combine(table)
    }

    /// The names of prepared events, interned for the life of the process: only names some
    /// chart's transitions or ignore lists declare are interned, so the set stays as small as the
    /// charts' vocabularies.
    static let names = InternedNames()

    /// A process-wide set of interned names.
    final class InternedNames: Sendable {
        /// The names by number, and the numbers by name.
        private struct Table {
            var names: [String] = []
            var numbers: [String: Int32] = [:]
        }

        private let table = Mutex(Table())

        /// The number of `name`, interning it first if needed.
        func intern(_ name: String) -> Int32 {
            table.withLock { table in
                if let number = table.numbers[name] { return number }
                let number = Int32(table.names.count)
                table.names.append(name)
                table.numbers[name] = number
                return number
            }
        }

        /// The name numbered `number`.
        func name(_ number: Int32) -> String {
            table.withLock { $0.names[Int(number)] }
        }
    }
}

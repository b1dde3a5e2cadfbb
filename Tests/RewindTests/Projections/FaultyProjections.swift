import Dispatch
import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// Throws on the record whose global sequence it is armed with (a fault injected into a fold).
final class FaultSwitch: Sendable {
    struct Injected: Error, CustomStringConvertible {
        let sequence: UInt64
        var description: String { "injected fault at sequence \(sequence)" }
    }

    let failAt = LockedBox<UInt64?>(nil)

    func check(_ record: TransitionRecord) throws {
        if let failAt = failAt.current, failAt == record.sequence { throw Injected(sequence: record.sequence) }
    }
}

/// ``ScreenFlowProjection`` through the general fold (whole records, the projection's own
/// `apply`), not its fold over record views; the same stored bytes. Can be made to fail.
struct GeneralScreenFlow: Projection {
    var name: String
    var version: UInt32 = 1
    var fault: FaultSwitch

    func key(for record: TransitionRecord) -> String? { record.session.rawValue }

    func apply(_ record: TransitionRecord, to state: inout ScreenFlowProjection.Flow?) throws {
        try fault.check(record)
        ScreenFlowProjection(name: name).apply(record, to: &state)
    }

    func encode(_ state: ScreenFlowProjection.Flow, into buffer: inout [UInt8]) {
        ScreenFlowProjection(name: name).encode(state, into: &buffer)
    }

    func decode(_ bytes: UnsafeRawBufferPointer) throws -> ScreenFlowProjection.Flow {
        try ScreenFlowProjection(name: name).decode(bytes)
    }
}

/// ``NavigationProjection`` that can be made to fail; the same stored bytes.
struct FaultyNavigation: Projection {
    var name: String
    var fault: FaultSwitch
    var version: UInt32 { 1 }

    func key(for record: TransitionRecord) -> String? { record.session.rawValue }

    func apply(_ record: TransitionRecord, to state: inout NavigationProjection.SessionNavigation?) throws {
        try fault.check(record)
        try NavigationProjection(name: name).apply(record, to: &state)
    }

    func encode(_ state: NavigationProjection.SessionNavigation, into buffer: inout [UInt8]) throws {
        try NavigationProjection(name: name).encode(state, into: &buffer)
    }

    func decode(_ bytes: UnsafeRawBufferPointer) throws -> NavigationProjection.SessionNavigation {
        try NavigationProjection(name: name).decode(bytes)
    }
}

import Foundation
@_spi(Internals) import RewindStore
import RewindValues

extension SessionArchive {
    /// The fields of a record, as its line's one writer (``RecordLineFields/writeLineJSON(recordedState:into:room:)``)
    /// reads them: from a ``Record``'s values (a stream's export, a rewrite, a redacted record) or
    /// in place from a stored record (`RecordView`, a device's export), so an export makes no
    /// Swift value per field (Benchmarks/HISTORY.md, "An export written from the stored bytes").
    protocol RecordLineFields {
        /// The record's version within its session.
        var version: UInt64 { get }
        /// The record's global sequence.
        var sequence: UInt64 { get }
        /// The record's wall-clock time, in microseconds since 1970.
        var timestampMicroseconds: Int64 { get }
        /// Whether the record was redacted (``TransitionRecord/redacted``).
        var redacted: Bool { get }
        /// At least the UTF-8 bytes of the record's strings (its texts, the strings of its lists,
        /// the screens of its navigation, its origin's session) plus one for each string and two
        /// for each navigation operation: what sizes the room its line is written in.
        var textByteCount: Int { get }
        /// The session and version the record's session was forked from, when it was.
        var origin: RecordOrigin? { get }
        /// Calls `body` with the UTF-8 of the string `field`.
        func withUTF8(of field: TextField, _ body: (UnsafeRawBufferPointer) -> Void)
        /// Calls `body` with the UTF-8 of each string of `list`, in order.
        func forEachUTF8(in list: ListField, _ body: (UnsafeRawBufferPointer) -> Void)
        /// Calls `body` with each navigation operation's tag and the UTF-8 of its screen (empty
        /// for a tag without one), in order.
        func forEachNavigation(_ body: (NavigationTag, UnsafeRawBufferPointer) throws -> Void) rethrows
        /// Calls `body` with the bytes of `field`.
        func withBytes<Failure: Error>(
            of field: BytesField, _ body: (UnsafeRawBufferPointer) throws(Failure) -> Void
        ) throws(Failure)
    }

    /// A record's strings (``RecordLineFields``).
    enum TextField { case machine, definition, event }
    /// A record's lists of strings (``RecordLineFields``).
    enum ListField { case source, target }
    /// A record's bytes (``RecordLineFields``).
    enum BytesField { case payload, stateData }
}

extension SessionArchive.RecordLineFields {
    /// Appends the record line's body: the JSON object `JSONEncoder` with `.sortedKeys` and
    /// `.withoutEscapingSlashes` writes for it (members in UTF-8 order, `/` unescaped), written
    /// directly, member by member. The one writer of record lines; an export spends its time here
    /// (`JSONEncoder` took about 100,000 instructions a record, see Benchmarks/HISTORY.md).
    ///
    /// The payload and the state data are written as the JSON values they hold (`payload`,
    /// `stateData`) when their bytes are exactly that value's canonical text, so an import stores
    /// the very bytes exported; other bytes go in base64 (`payloadBase64`, `stateDataBase64`); no
    /// bytes, no member. `recordedState` is the state a redacted record recorded
    /// (``SessionArchive/Record/recordedState``), written as `recordedState` when there is one.
    ///
    /// - Throws: ``JSONWriteError`` when `recordedState` holds a NaN or an infinity (a snapshot
    ///   never does: its coder refuses them).
    func writeLineJSON(
        recordedState: JSONValue?, into bytes: inout [UInt8], room scratch: inout [UInt8]
    ) throws(JSONWriteError) {
        // Written in three pieces into `scratch`, kept by the caller from line to line and
        // grown to the room this record needs (`textByteCount`: each item takes at most eight
        // bytes per byte it counts for, its quotes, escapes and comma included), between them
        // the members written as JSON values into `bytes`.
        let room = 8 * textByteCount + 256
        if scratch.count < room { scratch = [UInt8](repeating: 0, count: Swift.max(room, scratch.count * 2)) }
        let outcome: Result<Void, JSONWriteError> = scratch.withUnsafeMutableBytes { memory in
            var text = JSONRawWriter(memory)
            text.put(#"{"definition":"#)
            string(.definition, into: &text)
            text.put(#","event":"#)
            string(.event, into: &text)
            text.put(#","machine":"#)
            string(.machine, into: &text)
            text.put(#","navigation":["#)
            var first = true
            forEachNavigation { tag, screen in
                if !first { text.put(UInt8(ascii: ",")) }
                first = false
                Self.write(tag, screen: screen, into: &text)
            }
            text.put(UInt8(ascii: "]"))
            if let origin {
                text.put(#","origin":{"session":"#)
                var session = origin.session.rawValue
                session.withUTF8 { text.writeString(utf8: UnsafeRawBufferPointer($0), escapingSlashes: false) }
                text.put(#","version":"#)
                text.writeDigits(origin.version)
                text.put(UInt8(ascii: "}"))
            }
            Self.flush(&text, into: &bytes)
            do throws(JSONWriteError) {
                try withBytes(of: .payload) { (payload) throws(JSONWriteError) in
                    try Self.write(payload, json: #","payload":"#, base64: #","payloadBase64":"#, into: &bytes)
                }
                if let recordedState {
                    Self.member(#","recordedState":"#, into: &bytes)
                    try recordedState.write(into: &bytes, escapingSlashes: false)
                }
            } catch {
                return .failure(error)
            }
            if redacted { text.put(#","redacted":true"#) }
            text.put(#","sequence":"#)
            text.writeDigits(sequence)
            text.put(#","source":"#)
            strings(.source, into: &text)
            Self.flush(&text, into: &bytes)
            do throws(JSONWriteError) {
                try withBytes(of: .stateData) { (stateData) throws(JSONWriteError) in
                    try Self.write(stateData, json: #","stateData":"#, base64: #","stateDataBase64":"#, into: &bytes)
                }
            } catch {
                return .failure(error)
            }
            text.put(#","target":"#)
            strings(.target, into: &text)
            text.put(#","timestamp":"#)
            let timestamp = timestampMicroseconds
            if timestamp < 0 { text.put(UInt8(ascii: "-")) }
            text.writeDigits(timestamp.magnitude)
            text.put(#","version":"#)
            text.writeDigits(version)
            text.put(UInt8(ascii: "}"))
            Self.flush(&text, into: &bytes)
            return .success(())
        }
        try outcome.get()
    }

    /// Appends what `text` wrote to `bytes`, and starts it over.
    @inline(__always)
    private static func flush(_ text: inout JSONRawWriter, into bytes: inout [UInt8]) {
        bytes.append(contentsOf: text.written)
        text.removeAll()
    }

    /// Appends `text` (static, a member's name with its punctuation) to `bytes`.
    @inline(__always)
    private static func member(_ text: StaticString, into bytes: inout [UInt8]) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private func string(_ field: SessionArchive.TextField, into text: inout JSONRawWriter) {
        withUTF8(of: field) { text.writeString(utf8: $0, escapingSlashes: false) }
    }

    private func strings(_ list: SessionArchive.ListField, into text: inout JSONRawWriter) {
        text.put(UInt8(ascii: "["))
        var first = true
        forEachUTF8(in: list) { utf8 in
            if !first { text.put(UInt8(ascii: ",")) }
            first = false
            text.writeString(utf8: utf8, escapingSlashes: false)
        }
        text.put(UInt8(ascii: "]"))
    }

    /// A navigation operation as ``ArchiveNavigation`` has it: `"pop"`, or `{"push":"detail"}`.
    private static func write(_ tag: NavigationTag, screen: UnsafeRawBufferPointer, into text: inout JSONRawWriter) {
        let name: StaticString =
            switch tag {
            case .none: #""none""#
            case .pop: #""pop""#
            case .popToRoot: #""popToRoot""#
            case .push: #"{"push":"#
            case .popTo: #"{"popTo":"#
            case .replace: #"{"replace":"#
            case .setRoot: #"{"setRoot":"#
            }
        text.put(name)
        guard tag.hasScreen else { return }
        text.writeString(utf8: screen, escapingSlashes: false)
        text.put(UInt8(ascii: "}"))
    }

    /// Payload or state data bytes: as the JSON value they hold when it writes back to exactly
    /// them, else in base64; nothing for no bytes.
    private static func write(
        _ value: UnsafeRawBufferPointer, json: StaticString, base64: StaticString, into bytes: inout [UInt8]
    ) throws(JSONWriteError) {
        guard !value.isEmpty else { return }
        if let parsed = try? JSONValue(jsonBytes: value), let canonical = try? parsed.jsonBytes(),
            canonical.elementsEqual(value)
        {
            member(json, into: &bytes)
            // `value` is the canonical text, `/` escaped; the line's text differs from it only
            // where it holds a `/`: without one, `value` is the line's text (not written twice).
            if value.contains(UInt8(ascii: "/")) {
                try parsed.write(into: &bytes, escapingSlashes: false)
            } else {
                bytes.append(contentsOf: value)
            }
        } else {
            member(base64, into: &bytes)
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: Data(value).base64EncodedData())
            bytes.append(UInt8(ascii: "\""))
        }
    }
}

extension SessionArchive.Record: SessionArchive.RecordLineFields {
    var timestampMicroseconds: Int64 { timestamp }

    var textByteCount: Int {
        var count = machine.utf8.count + definition.utf8.count + event.utf8.count + 3
        for text in source { count += text.utf8.count + 1 }
        for text in target { count += text.utf8.count + 1 }
        for operation in navigation { count += (operation.screen?.utf8.count ?? 0) + 2 }
        if let origin { count += origin.session.rawValue.utf8.count + 1 }
        return count
    }

    /// Appends the record line's body (``SessionArchive/RecordLineFields/writeLineJSON(recordedState:into:room:)``,
    /// with this line's ``recordedState``).
    ///
    /// - Throws: ``JSONWriteError`` when ``recordedState`` holds a NaN or an infinity.
    func writeJSON(into bytes: inout [UInt8]) throws(JSONWriteError) {
        var room: [UInt8] = []
        try writeLineJSON(recordedState: recordedState, into: &bytes, room: &room)
    }

    func withUTF8(of field: SessionArchive.TextField, _ body: (UnsafeRawBufferPointer) -> Void) {
        var text =
            switch field {
            case .machine: machine
            case .definition: definition
            case .event: event
            }
        text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    func forEachUTF8(in list: SessionArchive.ListField, _ body: (UnsafeRawBufferPointer) -> Void) {
        for var text in list == .source ? source : target {
            text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        }
    }

    func forEachNavigation(_ body: (NavigationTag, UnsafeRawBufferPointer) throws -> Void) rethrows {
        for operation in navigation {
            guard var screen = operation.screen else {
                try body(NavigationTag(operation), UnsafeRawBufferPointer(start: nil, count: 0))
                continue
            }
            try screen.withUTF8 { try body(NavigationTag(operation), UnsafeRawBufferPointer($0)) }
        }
    }

    func withBytes<Failure: Error>(
        of field: SessionArchive.BytesField, _ body: (UnsafeRawBufferPointer) throws(Failure) -> Void
    ) throws(Failure) {
        let result: Result<Void, Failure> = (field == .payload ? payload : stateData).withUnsafeBytes { buffer in
            do throws(Failure) {
                return .success(try body(buffer))
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }
}

extension RecordView: SessionArchive.RecordLineFields {
    var timestampMicroseconds: Int64 { timestamp.microsecondsSince1970 }

    /// The record's stored bytes, each string counted with the length stored before it, and
    /// one more for each navigation operation: one without a screen is stored as a tag alone
    /// (one byte) and written as up to twelve (`"popToRoot",`).
    var textByteCount: Int { body.count + navigationCount }

    func withUTF8(of field: SessionArchive.TextField, _ body: (UnsafeRawBufferPointer) -> Void) {
        switch field {
        case .machine: body(bytes(of: machineField))
        case .definition: body(bytes(of: definitionField))
        case .event: body(bytes(of: eventField))
        }
    }

    func forEachUTF8(in list: SessionArchive.ListField, _ body: (UnsafeRawBufferPointer) -> Void) {
        for utf8 in list == .source ? source : target { body(utf8) }
    }

    func withBytes<Failure: Error>(
        of field: SessionArchive.BytesField, _ body: (UnsafeRawBufferPointer) throws(Failure) -> Void
    ) throws(Failure) {
        try body(bytes(of: field == .payload ? payloadField : stateDataField))
    }
}

import Foundation
@_spi(Internals) import RewindStore
import RewindValues

extension SessionArchive.Record {
    /// Appends the record line's body: the JSON object `JSONEncoder` with `.sortedKeys` and
    /// `.withoutEscapingSlashes` writes for it (members in UTF-8 order, `/` unescaped), written
    /// directly, member by member. The one writer of record lines; an export spends its time here
    /// (`JSONEncoder` took about 100,000 instructions a record, see Benchmarks/HISTORY.md).
    ///
    /// The payload and the state data are written as the JSON values they hold (`payload`,
    /// `stateData`) when their bytes are exactly that value's canonical text, so an import stores
    /// the very bytes exported; other bytes go in base64 (`payloadBase64`, `stateDataBase64`); no
    /// bytes, no member. A number held as decimal text is written as that text (`JSONEncoder`
    /// went through `Decimal`).
    ///
    /// - Throws: ``JSONWriteError`` when ``recordedState`` holds a NaN or an infinity (a
    ///   snapshot never does: its coder refuses them).
    func writeJSON(into bytes: inout [UInt8]) throws {
        Self.member(#"{"definition":"#, into: &bytes)
        Self.string(definition, into: &bytes)
        Self.member(#","event":"#, into: &bytes)
        Self.string(event, into: &bytes)
        Self.member(#","machine":"#, into: &bytes)
        Self.string(machine, into: &bytes)
        Self.member(#","navigation":"#, into: &bytes)
        bytes.append(UInt8(ascii: "["))
        for (index, operation) in navigation.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            Self.write(operation, into: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
        if let origin {
            Self.member(#","origin":{"session":"#, into: &bytes)
            Self.string(origin.session.rawValue, into: &bytes)
            Self.member(#","version":"#, into: &bytes)
            JSONText.writeDigits(origin.version, into: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        try Self.write(payload, json: #","payload":"#, base64: #","payloadBase64":"#, into: &bytes)
        if let recordedState {
            Self.member(#","recordedState":"#, into: &bytes)
            try recordedState.write(into: &bytes, escapingSlashes: false)
        }
        if redacted {
            Self.member(#","redacted":"#, into: &bytes)
            bytes.append(contentsOf: "true".utf8)
        }
        Self.member(#","sequence":"#, into: &bytes)
        JSONText.writeDigits(sequence, into: &bytes)
        Self.member(#","source":"#, into: &bytes)
        Self.strings(source, into: &bytes)
        try Self.write(stateData, json: #","stateData":"#, base64: #","stateDataBase64":"#, into: &bytes)
        Self.member(#","target":"#, into: &bytes)
        Self.strings(target, into: &bytes)
        Self.member(#","timestamp":"#, into: &bytes)
        if timestamp < 0 { bytes.append(UInt8(ascii: "-")) }
        JSONText.writeDigits(timestamp.magnitude, into: &bytes)
        Self.member(#","version":"#, into: &bytes)
        JSONText.writeDigits(version, into: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }

    /// Appends `text`, a member's name as the line has it: quoted, with its colon, after the
    /// comma before it or the brace that opens its object (`#","event":"#`). One copy of static
    /// text: appending its five parts one by one cost about 900 instructions a line.
    private static func member(_ text: StaticString, into bytes: inout [UInt8]) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private static func string(_ value: String, into bytes: inout [UInt8]) {
        JSONText.writeString(value, into: &bytes, escapingSlashes: false)
    }

    private static func strings(_ values: [String], into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(value, into: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// A navigation operation as ``ArchiveNavigation`` has it: `"pop"`, or `{"push":"detail"}`.
    private static func write(_ operation: NavigationOperation, into bytes: inout [UInt8]) {
        let (name, screen): (String, String?) =
            switch operation {
            case .none: ("none", nil)
            case .pop: ("pop", nil)
            case .popToRoot: ("popToRoot", nil)
            case .push(let screen): ("push", screen)
            case .popTo(let screen): ("popTo", screen)
            case .replace(let screen): ("replace", screen)
            case .setRoot(let screen): ("setRoot", screen)
            }
        guard let screen else { return string(name, into: &bytes) }
        bytes.append(UInt8(ascii: "{"))
        string(name, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
        string(screen, into: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }

    /// Payload or state data bytes: as the JSON value they hold when it writes back to exactly
    /// them, else in base64; nothing for no bytes.
    private static func write(_ value: [UInt8], json: StaticString, base64: StaticString, into bytes: inout [UInt8])
        throws(JSONWriteError)
    {
        guard !value.isEmpty else { return }
        if let parsed = try? JSONValue(jsonBytes: value), (try? parsed.jsonBytes()) == value {
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
            bytes.append(contentsOf: value.base64EncodedBytes())
            bytes.append(UInt8(ascii: "\""))
        }
    }
}

extension [UInt8] {
    /// The bytes' standard base64 text (with padding), as `Data.base64EncodedString()` writes it.
    fileprivate func base64EncodedBytes() -> [UInt8] {
        Array(Data(self).base64EncodedData())
    }
}

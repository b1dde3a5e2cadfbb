/// A key press read from a terminal.
enum Key: Equatable, Sendable {
    /// A direction key.
    enum Arrow: Equatable, Sendable { case up, down, left, right }

    /// An arrow key; `modifiers` is the xterm modifier parameter minus one (bit 0 Shift, bit 1
    /// Alt, bit 2 Ctrl, bit 3 Meta), 0 when it was pressed alone.
    case arrow(Arrow, modifiers: Int)
    case home, end, pageUp, pageDown, insert, delete
    case enter, backspace, tab
    /// Escape pressed on its own.
    case escape
    /// Ctrl-C read as a byte (when the terminal does not turn it into SIGINT).
    case interrupt
    /// A printable character (UTF-8 decoded).
    case character(Character)
    /// A sequence this decoder does not know (a function key, a modified Home, a mouse report…):
    /// consumed whole and to be ignored.
    case unknown

    /// An arrow pressed without modifiers.
    static let left = Key.arrow(.left, modifiers: 0)
    /// An arrow pressed without modifiers.
    static let right = Key.arrow(.right, modifiers: 0)
    /// An arrow pressed without modifiers.
    static let up = Key.arrow(.up, modifiers: 0)
    /// An arrow pressed without modifiers.
    static let down = Key.arrow(.down, modifiers: 0)
}

/// Turns the bytes a terminal sends into key presses: CSI (`ESC [`) and SS3 (`ESC O`) sequences
/// with xterm modifier parameters (`ESC[1;5C` is Ctrl+→), the `~` keys (`ESC[3~` Delete,
/// `ESC[5~` Page Up…), UTF-8 characters and control bytes.
///
/// It needs no timeout: a terminal writes a key's whole sequence at once, so the bytes of one
/// read hold whole sequences, and an Escape byte with nothing after it in the read is the Escape
/// key. A sequence that is not complete at the end of the bytes is kept for the next read
/// (``decode(_:)`` returns how many bytes it used).
enum KeyDecoder {
    /// The keys in `bytes`, and how many bytes they used; the rest (an incomplete UTF-8 character
    /// or escape sequence cut by the read) is to be prefixed to the next read's bytes.
    ///
    /// With `final`, nothing is kept: an incomplete sequence at the end is read as Escape (when
    /// it is a lone Escape byte) or as an unknown key.
    static func decode(_ bytes: [UInt8], final: Bool = true) -> (keys: [Key], consumed: Int) {
        var keys: [Key] = []
        var index = 0
        while index < bytes.count {
            guard let (key, length) = decodeOne(bytes, at: index) else {
                if final {
                    keys.append(bytes[index] == 0x1B && index == bytes.count - 1 ? .escape : .unknown)
                    index = bytes.count
                }
                break
            }
            keys.append(key)
            index += length
        }
        return (keys, index)
    }

    /// The key at `start` and its length in bytes; `nil` when the bytes end inside it (an
    /// Escape byte at the very end is the Escape key, not an incomplete sequence).
    private static func decodeOne(_ bytes: [UInt8], at start: Int) -> (Key, Int)? {
        let byte = bytes[start]
        switch byte {
        case 0x1B:
            guard start + 1 < bytes.count else { return (.escape, 1) }
            let introducer = bytes[start + 1]
            if introducer == UInt8(ascii: "[") { return csi(bytes, at: start) }
            if introducer == UInt8(ascii: "O") { return ss3(bytes, at: start) }
            if introducer == 0x1B { return (.escape, 1) }
            // Alt+key: the key with an Escape prefix; not a key of the replay.
            return (.unknown, 2)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x09: return (.tab, 1)
        case 0x03: return (.interrupt, 1)
        case 0x00..<0x20: return (.unknown, 1)
        case 0x20..<0x80: return (.character(Character(Unicode.Scalar(byte))), 1)
        default: return utf8Character(bytes, at: start)
        }
    }

    /// `ESC [ parameters intermediates final`: parameters are 0x30–0x3F, intermediates 0x20–0x2F,
    /// the final byte 0x40–0x7E.
    private static func csi(_ bytes: [UInt8], at start: Int) -> (Key, Int)? {
        var index = start + 2
        var parameters: [UInt8] = []
        while index < bytes.count, (0x30...0x3F).contains(bytes[index]) {
            parameters.append(bytes[index])
            index += 1
        }
        while index < bytes.count, (0x20...0x2F).contains(bytes[index]) { index += 1 }
        guard index < bytes.count else { return nil }
        let final = bytes[index]
        let length = index - start + 1
        guard (0x40...0x7E).contains(final) else { return (.unknown, length) }
        let fields = String(decoding: parameters, as: UTF8.self)
            .split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        let first = fields.first ?? nil
        let modifiers = fields.count > 1 ? max(0, (fields[1] ?? 1) - 1) : 0
        if fields.contains(where: { $0 == nil }) && !parameters.isEmpty { return (.unknown, length) }
        switch final {
        case UInt8(ascii: "A"), UInt8(ascii: "B"), UInt8(ascii: "C"), UInt8(ascii: "D"):
            // `ESC[A` or `ESC[1;5A`; any other first parameter is not an arrow.
            guard parameters.isEmpty || first == 1 else { return (.unknown, length) }
            return (.arrow(arrow(final), modifiers: modifiers), length)
        case UInt8(ascii: "H"), UInt8(ascii: "F"):
            guard parameters.isEmpty || first == 1, modifiers == 0 else { return (.unknown, length) }
            return (final == UInt8(ascii: "H") ? .home : .end, length)
        case UInt8(ascii: "~"):
            guard modifiers == 0, let first else { return (.unknown, length) }
            switch first {
            case 1, 7: return (.home, length)
            case 2: return (.insert, length)
            case 3: return (.delete, length)
            case 4, 8: return (.end, length)
            case 5: return (.pageUp, length)
            case 6: return (.pageDown, length)
            default: return (.unknown, length)
            }
        default:
            return (.unknown, length)
        }
    }

    /// `ESC O final` (application cursor keys): arrows, Home, End; F1–F4 and keypad keys are unknown.
    private static func ss3(_ bytes: [UInt8], at start: Int) -> (Key, Int)? {
        guard start + 2 < bytes.count else { return nil }
        let final = bytes[start + 2]
        switch final {
        case UInt8(ascii: "A"), UInt8(ascii: "B"), UInt8(ascii: "C"), UInt8(ascii: "D"):
            return (.arrow(arrow(final), modifiers: 0), 3)
        case UInt8(ascii: "H"): return (.home, 3)
        case UInt8(ascii: "F"): return (.end, 3)
        default: return (.unknown, 3)
        }
    }

    private static func arrow(_ final: UInt8) -> Key.Arrow {
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        default: return .left
        }
    }

    /// A UTF-8 character of 2–4 bytes; a byte that cannot start one is an unknown key of one byte.
    private static func utf8Character(_ bytes: [UInt8], at start: Int) -> (Key, Int)? {
        let lead = bytes[start]
        let length: Int
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return (.unknown, 1)
        }
        guard start + length <= bytes.count else { return nil }
        let slice = Array(bytes[start..<start + length])
        let scalars = String(decoding: slice, as: UTF8.self).unicodeScalars
        guard slice.dropFirst().allSatisfy({ $0 & 0xC0 == 0x80 }), scalars.count == 1,
            let scalar = scalars.first, scalar != "\u{FFFD}"
        else {
            return (.unknown, 1)
        }
        return (.character(Character(scalar)), length)
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal in raw mode (keys arrive one by one, unechoed) for as long as it lives.
final class RawTerminal {
    /// A key press.
    enum Key: Equatable {
        case left, right, home, end, enter, backspace, escape
        case character(Character)
    }

    private var original: termios

    /// Switches standard input to raw mode; `nil` when standard input or output is not a terminal.
    init?() {
        var saved = termios()
        guard isatty(STDIN_FILENO) != 0, isatty(STDOUT_FILENO) != 0,
              tcgetattr(STDIN_FILENO, &saved) == 0 else { return nil }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON)
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else { return nil }
        original = saved
        write("\u{1B}[?25l")  // hide the cursor
    }

    deinit {
        write("\u{1B}[?25h\n")
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
    }

    /// Writes text as is.
    func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Clears the screen and draws `text` from the top.
    func draw(_ text: String) {
        write("\u{1B}[H\u{1B}[2J" + text.replacingOccurrences(of: "\n", with: "\r\n"))
    }

    /// Waits for the next key; `nil` at end of input.
    func readKey() -> Key? {
        guard let byte = readByte() else { return nil }
        switch byte {
        case 0x1B:
            // An arrow or Home/End key sends its escape sequence at once; a lone Escape press is
            // followed by nothing. Waiting for another byte would swallow the next key press.
            guard let next = readByte(within: Self.escapeSequenceWait) else { return .escape }
            guard next == UInt8(ascii: "[") || next == UInt8(ascii: "O") else { return .escape }
            guard let code = readByte() else { return .escape }
            switch code {
            case UInt8(ascii: "C"): return .right
            case UInt8(ascii: "D"): return .left
            case UInt8(ascii: "H"): return .home
            case UInt8(ascii: "F"): return .end
            case UInt8(ascii: "1"), UInt8(ascii: "7"):
                _ = readByte()
                return .home
            case UInt8(ascii: "4"), UInt8(ascii: "8"):
                _ = readByte()
                return .end
            default: return .escape
            }
        case 0x0A, 0x0D: return .enter
        case 0x7F, 0x08: return .backspace
        default: return .character(Character(Unicode.Scalar(byte)))
        }
    }

    /// How long the rest of an escape sequence may take to arrive after its Escape byte, in
    /// milliseconds.
    private static let escapeSequenceWait: Int32 = 50

    /// The next byte if one arrives within `milliseconds`, else `nil`.
    private func readByte(within milliseconds: Int32) -> UInt8? {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, milliseconds) == 1 else { return nil }
        return readByte()
    }

    private func readByte() -> UInt8? {
        var byte: UInt8 = 0
        return read(STDIN_FILENO, &byte, 1) == 1 ? byte : nil
    }
}

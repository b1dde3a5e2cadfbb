import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal in raw mode (keys arrive one by one, unechoed) on the alternate screen, with the
/// cursor hidden, until ``restore()``; it also reports resizes and SIGINT/SIGTERM as events, so
/// every way out goes through ``restore()``.
final class RawTerminal {
    /// What happened on the terminal.
    enum Event: Equatable {
        /// A key was pressed.
        case key(Key)
        /// The window changed size (SIGWINCH).
        case resized
        /// SIGINT or SIGTERM arrived: restore the terminal and exit.
        case signal(Int32)
        /// Standard input ended.
        case endOfInput
    }

    /// A terminal's size in character cells.
    struct Size: Equatable {
        var columns: Int
        var rows: Int
    }

    private var original: termios
    private var restored = false
    /// The self-pipe the signal sources write the signal's number to.
    private let signalPipe: (read: Int32, write: Int32)
    private var sources: [any DispatchSourceSignal] = []
    private static let handledSignals: [Int32] = [SIGWINCH, SIGINT, SIGTERM]
    /// Bytes of an escape sequence or UTF-8 character a read cut in two.
    private var pending: [UInt8] = []

    /// Switches standard input to raw mode; `nil` when standard input or output is not a terminal.
    init?() {
        var saved = termios()
        guard isatty(STDIN_FILENO) != 0, isatty(STDOUT_FILENO) != 0,
            tcgetattr(STDIN_FILENO, &saved) == 0
        else { return nil }
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { return nil }
        signalPipe = (descriptors[0], descriptors[1])
        var raw = saved
        // ISIG stays: Ctrl-C is SIGINT, handled below like SIGTERM.
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON)
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else {
            close(descriptors[0])
            close(descriptors[1])
            return nil
        }
        original = saved
        let writeEnd = signalPipe.write
        for number in Self.handledSignals {
            // The default action would end the process with the terminal still raw.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                var byte = UInt8(truncatingIfNeeded: number)
                _ = systemWrite(writeEnd, &byte, 1)
            }
            source.resume()
            sources.append(source)
        }
        installFaultHandlers(restoring: saved)
        // The alternate screen keeps the user's scrollback; then hide the cursor.
        write("\u{1B}[?1049h\u{1B}[?25l")
    }

    deinit { restore() }

    /// Shows the cursor, leaves the alternate screen and puts the terminal's modes and the signals'
    /// default actions back. Safe to call more than once.
    func restore() {
        guard !restored else { return }
        restored = true
        write("\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
        for source in sources { source.cancel() }
        for number in Self.handledSignals + faultSignals { signal(number, SIG_DFL) }
        close(signalPipe.read)
        close(signalPipe.write)
    }

    /// The terminal's size (80×24 when it cannot be read).
    var size: Size {
        var window = winsize()
        let status = withUnsafeMutablePointer(to: &window) { ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), $0) }
        guard status == 0, window.ws_col > 0, window.ws_row > 0 else {
            return Size(columns: 80, rows: 24)
        }
        return Size(columns: Int(window.ws_col), rows: Int(window.ws_row))
    }

    /// Writes text as is.
    func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Draws `lines` from the top, one per row, each clearing the rest of its row and the rows
    /// below the last (nothing scrolls: no line is followed by a newline).
    func draw(_ lines: [String]) {
        var output = "\u{1B}[H"
        for (index, line) in lines.enumerated() {
            output += "\u{1B}[\(index + 1);1H" + line + "\u{1B}[K"
        }
        output += "\u{1B}[J"
        write(output)
    }

    /// Waits for what happens next: keys (all those of one read), a resize, a signal or the end
    /// of input. Unknown keys are left out.
    func nextEvents() -> [Event] {
        while true {
            var descriptors = [
                pollfd(fd: signalPipe.read, events: Int16(POLLIN), revents: 0),
                pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
            ]
            guard poll(&descriptors, 2, -1) > 0 else {
                if errno == EINTR { continue }
                return [.endOfInput]
            }
            if descriptors[0].revents & Int16(POLLIN) != 0 {
                var byte: UInt8 = 0
                guard read(signalPipe.read, &byte, 1) == 1 else { continue }
                let number = Int32(byte)
                return [number == SIGWINCH ? .resized : .signal(number)]
            }
            if descriptors[1].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                var buffer = [UInt8](repeating: 0, count: 256)
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                guard count > 0 else { return [.endOfInput] }
                pending += buffer[0..<count]
                // A read that ends inside a sequence: its rest is on the way (a terminal writes a
                // key's bytes together), so wait briefly for it; a lone Escape is not waited for.
                var decoded = KeyDecoder.decode(pending, final: false)
                if decoded.consumed < pending.count, waitForInput(milliseconds: 50) { continue }
                if decoded.consumed < pending.count { decoded = KeyDecoder.decode(pending, final: true) }
                pending.removeFirst(decoded.consumed)
                let keys = decoded.keys.filter { $0 != .unknown }
                if !keys.isEmpty { return keys.map(Event.key) }
            }
        }
    }

    private func waitForInput(milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, milliseconds) == 1
    }
}

/// The C library's `write(2)` (the name `write` is the terminal's method inside the class).
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

/// The terminal modes to put back when the process faults (``installFaultHandlers(restoring:)``);
/// written before the handlers are installed, read only by them.
nonisolated(unsafe) private var faultTerminalModes = termios()

/// What a fault handler writes: leave the alternate screen, show the cursor, then say why.
private let faultRestoreSequence = Array("\u{1B}[?25h\u{1B}[?1049l".utf8)
private let faultMessage = Array(
    ("Error: the store's data file changed under the replay (truncated or damaged while it was read: "
        + "SIGBUS or SIGSEGV); the replay stopped and the terminal was restored. Run `rewind check`.\n").utf8)

/// The synchronous signals a read of a data file truncated (SIGBUS) or damaged (SIGSEGV) under
/// the process raises.
private let faultSignals: [Int32] = [SIGBUS, SIGSEGV]

/// Installs handlers for ``faultSignals`` that restore the terminal to `modes` and the main
/// screen, print one line saying what happened and exit with 128 + the signal's number: the
/// default action would leave the user's terminal raw and on the alternate screen, where `q`
/// does nothing. The handlers call only async-signal-safe functions (`write`, `tcsetattr`, `_exit`).
private func installFaultHandlers(restoring modes: termios) {
    faultTerminalModes = modes
    // Globals are initialised on first use: not inside a signal handler.
    _ = (faultRestoreSequence.count, faultMessage.count)
    for number in faultSignals {
        signal(number) { received in
            _ = faultRestoreSequence.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &faultTerminalModes)
            _ = faultMessage.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            _exit(128 + received)
        }
    }
}

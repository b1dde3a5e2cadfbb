import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writing to the terminal: plain lines, JSON, tables and a progress bar shown only on a terminal.
enum Terminal {
    /// Whether standard output is a terminal.
    static var outputIsTerminal: Bool { isatty(STDOUT_FILENO) != 0 }
    /// Whether standard error is a terminal (progress goes there).
    static var errorIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    /// Prints `value` as pretty, key-sorted JSON on standard output.
    static func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(value)
        print(String(decoding: data, as: UTF8.self))
    }

    /// Formats rows as left-aligned columns under `header`; every cell is shown with its control
    /// characters escaped (``Swift/String/shown``), so a cell holding a newline or an escape
    /// sequence stays one cell.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        let all = ([header] + rows).map { $0.map(\.shown) }
        var widths = [Int](repeating: 0, count: header.count)
        for row in all {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}

/// A one-line progress bar on standard error when it is a terminal; with a `unit`, when standard
/// error is not a terminal, a plain line (`verifying: 1200/100000 sessions`) every few seconds
/// and at the end, so a long run that is piped or logged shows it is moving.
final class ProgressBar {
    private let title: String
    private let total: Int
    private let enabled: Bool
    private let unit: String?
    private var lastDrawn = Date.distantPast
    private var lastLine: Date
    private let started: Date

    /// How often the piped progress line is written.
    static let lineInterval: TimeInterval = 2

    init(title: String, total: Int, unit: String? = nil) {
        self.title = title
        self.total = max(total, 1)
        self.enabled = Terminal.errorIsTerminal
        self.unit = unit
        let now = Date()
        started = now
        lastLine = now
    }

    /// Shows `done` out of the total (at most ten redraws a second).
    func update(_ done: Int) {
        guard enabled else {
            guard let unit else { return }
            let now = Date()
            if done >= total || now.timeIntervalSince(lastLine) >= Self.lineInterval {
                lastLine = now
                FileHandle.standardError.write(Data("\(title): \(done)/\(total) \(unit)\n".utf8))
            }
            return
        }
        let now = Date()
        guard done >= total || now.timeIntervalSince(lastDrawn) > 0.1 else { return }
        lastDrawn = now
        let width = 30
        let filled = min(width, width * done / total)
        let rate = Double(done) / max(now.timeIntervalSince(started), 0.001)
        let bar =
            String(repeating: Glyphs.current.progressDone, count: filled)
            + String(repeating: Glyphs.current.progressRest, count: width - filled)
        let line = "\r\(title) \(bar) \(done)/\(total)  \(Int(rate))/s"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Clears the line.
    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}

import Foundation
import Rewind

/// The data a viewer page embeds (`<script type="application/json" id="rw-data">`), as the page's
/// script reads it: for tests of what a page holds without a browser.
public enum ViewerPageData {
    /// A machine page's data: its machine and the upgrade check it shows, if any.
    public struct MachinePage: Decodable, Sendable {
        /// The machine.
        public var machine: String
        /// The upgrade check shown above the funnel.
        public var upgradeCheck: UpgradeCheck?
    }

    /// A machine page's upgrade check (`"upgradeCheck"`).
    public struct UpgradeCheck: Decodable, Sendable {
        /// The totals line (``UpgradeCheckReport/description``).
        public var summary: String
        /// Whether the release passes (``UpgradeCheckReport/passes``).
        public var passes: Bool
        /// The report.
        public var report: UpgradeCheckReport
        /// Each listed session's detail, in the order of the report's sessions.
        public var details: [String]
    }

    /// Why a page's data could not be read.
    public struct Missing: Error, CustomStringConvertible {
        public var description: String { "the page embeds no #rw-data script" }
    }

    /// The embedded JSON of `page`.
    ///
    /// - Throws: ``Missing`` when the page holds none.
    public static func json(in page: Data) throws -> Data {
        let bytes = Array(page)
        guard let start = bytes.firstRange(of: Array(#"id="rw-data">"#.utf8)),
            let end = bytes[start.upperBound...].firstRange(of: Array("</script>".utf8))
        else { throw Missing() }
        return Data(bytes[start.upperBound..<end.lowerBound])
    }

    /// The machine page data of `page`.
    ///
    /// - Throws: ``Missing``, or the decoder's error for data of another shape.
    public static func machinePage(_ page: Data) throws -> MachinePage {
        try JSONDecoder().decode(MachinePage.self, from: try json(in: page))
    }
}

/// Text made safe for XML and HTML: the one escaper behind the SCXML export, the viewer's SVG
/// diagrams and its HTML pages, and the fleet server's page (`@_spi(Internals)`: the server is
/// another package).
///
/// The result is safe both as element content and inside a single- or double-quoted attribute
/// value: the five markup characters become entities; tab, line feed and carriage return become
/// character references (so attribute-value normalisation keeps them); the characters XML 1.0
/// cannot hold (other C0 controls, U+FFFE, U+FFFF) become U+FFFD. Everything else, non-ASCII
/// included, is kept as it is.
@_spi(Internals) public enum XMLText {
    /// `text` escaped as the type describes.
    public static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t": result += "&#9;"
            case "\n": result += "&#10;"
            case "\r": result += "&#13;"
            default:
                let value = scalar.value
                if value < 0x20 || value == 0xFFFE || value == 0xFFFF {
                    result.unicodeScalars.append("\u{FFFD}")
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}

/// A point of the diagram, in SVG user units (y grows downwards).
struct DiagramPoint: Sendable, Hashable {
    var x: Double
    var y: Double
}

/// An axis-aligned box of the diagram.
struct DiagramRect: Sendable, Hashable {
    var x: Double
    var y: Double
    var width: Double
    var height: Double

    var maxX: Double { x + width }
    var maxY: Double { y + height }
    var midX: Double { x + width / 2 }
    var midY: Double { y + height / 2 }

    /// `value` kept within the box's horizontal extent less `inset` on each side (its middle when
    /// the box is narrower than twice the inset).
    func clampedX(_ value: Double, inset: Double) -> Double {
        guard width > 2 * inset else { return midX }
        return min(max(value, x + inset), maxX - inset)
    }
}

/// Approximate text widths without a font: a per-character estimate in ems, close to the common
/// sans-serif faces (Helvetica, Arial, San Francisco, DejaVu Sans), so boxes fit their names.
enum GlyphMetrics {
    /// The width of `text` drawn at `fontSize` (user units).
    static func width(of text: String, fontSize: Double) -> Double {
        var ems = 0.0
        for scalar in text.unicodeScalars { ems += width(of: scalar) }
        return ems * fontSize
    }

    private static func width(of scalar: Unicode.Scalar) -> Double {
        let value = scalar.value
        switch value {
        case 0x0300...0x036F, 0x200B...0x200F, 0xFE00...0xFE0F: return 0  // combining marks, zero-width
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
            0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1FAFF, 0x20000...0x3FFFD:
            return 1.0  // East Asian wide and emoji
        default: break
        }
        guard value < 0x80 else { return 0.6 }
        switch Character(scalar) {
        case "i", "j", "l", ".", ",", ":", ";", "'", "|", "!", "I": return 0.28
        case " ", "f", "t", "r", "(", ")", "[", "]", "{", "}", "/", "\\", "\"", "-": return 0.36
        case "m", "w", "M", "W", "@", "%": return 0.86
        case "A"..."Z", "&", "#": return 0.68
        case "0"..."9", "$", "_", "*", "+", "=", "<", ">", "?", "~", "^": return 0.57
        default: return 0.54
        }
    }
}

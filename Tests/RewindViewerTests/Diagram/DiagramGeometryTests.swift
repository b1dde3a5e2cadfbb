import Testing

@testable import RewindViewer

/// The glyph-width metric that sizes the diagram's boxes.
struct DiagramGeometryTests {
    @Test func widerTextMeasuresWider() {
        #expect(GlyphMetrics.width(of: "WWW", fontSize: 10) > GlyphMetrics.width(of: "iii", fontSize: 10))
        #expect(GlyphMetrics.width(of: "日本", fontSize: 10) == 20)
        #expect(GlyphMetrics.width(of: "", fontSize: 10) == 0)
    }
}

import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The XML namespaces the SCXML importer and exporter know.
enum SCXMLNamespace {
    /// W3C SCXML 1.0.
    static let scxml = "http://www.w3.org/2005/07/scxml"
    /// Rewind's extension attributes and elements (navigation, valid next states, ignored
    /// events, named guards, custom actions).
    static let rewind = "https://rewind.dev/scxml"
    /// The conventional prefix of ``rewind`` in exported documents.
    static let rewindPrefix = "rewind"
}

/// An XML name resolved against the namespace declarations in scope.
struct SCXMLName: Hashable {
    /// The namespace URI, or `nil` for an unprefixed attribute (or element outside any default
    /// namespace).
    var namespace: String?
    /// The local part of the name.
    var local: String
    /// The name as written in the document (`rewind:action`), for messages.
    var qualified: String
}

/// One element of an SCXML document, read into memory with its position.
struct SCXMLElement {
    var name: SCXMLName
    /// Attributes other than namespace declarations, in a stable (sorted) order.
    var attributes: [(name: SCXMLName, value: String)]
    var children: [SCXMLElement]
    /// Whether the element contained non-whitespace character data.
    var hasText: Bool
    /// The 1-based line of the `<` that opens the element's start tag.
    var line: Int
    /// The 1-based column, in characters, of the `<` that opens the element's start tag.
    var column: Int

    /// The value of the unprefixed attribute `local`.
    func attribute(_ local: String) -> String? {
        attributes.first { $0.name.namespace == nil && $0.name.local == local }?.value
    }

    /// The value of the attribute `local` in Rewind's extension namespace.
    func rewindAttribute(_ local: String) -> String? {
        attributes.first { $0.name.namespace == SCXMLNamespace.rewind && $0.name.local == local }?.value
    }
}

/// Reads XML bytes into a tree of ``SCXMLElement`` with Foundation's `XMLParser`, resolving
/// namespaces itself (so the result is the same on every platform) and bounding the nesting
/// depth.
///
/// Before parsing it refuses what the parser does not survive or should not see: bytes that are
/// not UTF-8 (swift-corelibs-foundation's `XMLParser` traps on a comment holding invalid UTF-8)
/// `<!DOCTYPE` declarations (its delegate never hears of entity declarations on Linux, so
/// they cannot be refused one by one) and processing instructions other than the XML
/// declaration (it reads a null pointer for one without data, `<?target?>`).
final class SCXMLElementTreeReader: NSObject, XMLParserDelegate {
    private var stack: [SCXMLElement] = []
    private var namespaceScopes: [[String: String]] = []
    private var root: SCXMLElement?
    private var failure: SCXMLImportError?

    /// The document's bytes, to find where an element's start tag begins.
    private let bytes: [UInt8]
    /// The byte offset where each line starts (line 1 at index 0).
    private let lineStarts: [Int]
    /// The most bytes in a row without `<` or `>`: the longest text, attribute value or comment
    /// is at most this long. Over ``SCXMLImportError/parserTokenLimit``, a parser failure is
    /// reported as the parser's size limit (libxml2 reports it under several codes).
    private let longestRunWithoutMarkup: Int

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var starts = [0]
        var longest = 0
        var runStart = 0
        bytes.withUnsafeBufferPointer { buffer in
            for offset in 0..<buffer.count {
                let byte = buffer[offset]
                if byte == 0x0A { starts.append(offset + 1) }
                if byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") {
                    longest = max(longest, offset - runStart)
                    runStart = offset + 1
                }
            }
        }
        longestRunWithoutMarkup = max(longest, bytes.count - runStart)
        lineStarts = starts
    }

    /// The line and column (1-based, in characters) of the `<` that opens the start tag the
    /// parser has just read. The parser reports the position of the tag's end (its `>` or `/>`),
    /// possibly lines after the `<`; an attribute value cannot hold a `<`, so the nearest one
    /// before that position opens the tag. Returns the parser's position when it cannot be
    /// followed back.
    private func startOfTag(line: Int, column: Int) -> (line: Int, column: Int) {
        guard line >= 1, line <= lineStarts.count, column >= 1 else { return (line, column) }
        let lineEnd = line < lineStarts.count ? lineStarts[line] : bytes.count
        var offset = lineStarts[line - 1]
        var characters = 1
        while characters < column, offset < lineEnd {
            offset += 1
            while offset < lineEnd, bytes[offset] & 0xC0 == 0x80 { offset += 1 }
            characters += 1
        }
        var start = min(offset, bytes.count - 1)
        while start >= 0, bytes[start] != UInt8(ascii: "<") { start -= 1 }
        guard start >= 0 else { return (line, column) }
        var startLine = line
        while startLine > 1, lineStarts[startLine - 1] > start { startLine -= 1 }
        var startColumn = 1
        for byte in bytes[lineStarts[startLine - 1]..<start] where byte & 0xC0 != 0x80 { startColumn += 1 }
        return (startLine, startColumn)
    }

    /// Parses `data` and returns the root element.
    ///
    /// The parser reads the bytes from a stream, in chunks: given them all at once, libxml2
    /// (under `XMLParser` on Linux) refuses a document over 10 MB ("huge input lookup") unless
    /// `XML_PARSE_HUGE` is set, which `XMLParser` does not expose. Read in chunks, only a single
    /// token over ``SCXMLImportError/parserTokenLimit`` is refused
    /// (``SCXMLImportError/Reason/sizeLimitExceeded(limit:)``).
    static func read(_ data: Data) throws(SCXMLImportError) -> SCXMLElement {
        let bytes = [UInt8](data)
        try screen(bytes)
        let parser = XMLParser(stream: InputStream(data: data))
        let reader = SCXMLElementTreeReader(bytes)
        parser.delegate = reader
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        let succeeded = parser.parse()
        if let failure = reader.failure { throw failure }
        if !succeeded || parser.parserError != nil {
            let code = (parser.parserError as NSError?)?.code ?? -1
            throw SCXMLImportError(
                reader.reason(forParserError: code), line: max(1, parser.lineNumber), column: Self.column(parser))
        }
        guard let root = reader.root else { throw SCXMLImportError(.emptyDocument) }
        return root
    }

    /// The parser's column, `nil` before it has read anything (libxml2 counts from 1).
    private static func column(_ parser: XMLParser) -> Int? {
        parser.columnNumber > 0 ? parser.columnNumber : nil
    }

    /// The error of the parser's `code` in words, from what the reader has seen so far: the
    /// common libxml2 codes (the same numbers as `XMLParser.ErrorCode`) get reasons of their own.
    private func reason(forParserError code: Int) -> SCXMLImportError.Reason {
        if longestRunWithoutMarkup >= SCXMLImportError.parserTokenLimit {
            return .sizeLimitExceeded(limit: SCXMLImportError.parserTokenLimit)
        }
        switch code {
        case 4:
            return .emptyDocument
        case 5, 77:
            if let open = stack.last { return .unclosedElement(open.name.qualified) }
            return root == nil ? .emptyDocument : .contentAfterRootElement
        case 42:
            return .duplicateAttribute
        case 76, 85:
            if let open = stack.last { return .mismatchedTag(expected: open.name.qualified) }
            return .malformedXML(code: code)
        default:
            return .malformedXML(code: code)
        }
    }

    private static func screen(_ bytes: [UInt8]) throws(SCXMLImportError) {
        // Foundation's own decoder: the stdlib's generic `transcode` runs unoptimised in debug
        // builds, seconds for a large document.
        guard String(bytes: bytes, encoding: .utf8) != nil else { throw SCXMLImportError(.notUTF8) }
        let failure: SCXMLImportError? = bytes.withUnsafeBufferPointer { buffer in
            // The XML declaration, allowed only at the very start (after an optional byte order mark).
            let declarationStart = buffer.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            var line = 1
            var index = 0
            let count = buffer.count
            while index < count {
                let byte = buffer[index]
                if byte == 0x0A { line += 1 }
                if byte == UInt8(ascii: "<"), index + 1 < count {
                    let rest = UnsafeBufferPointer(rebasing: buffer[index...])
                    if rest.starts(with: "<!DOCTYPE".utf8) {
                        return SCXMLImportError(.documentTypeDeclaration, line: line, column: nil)
                    }
                    if buffer[index + 1] == UInt8(ascii: "?") {
                        let isDeclaration =
                            index == declarationStart && rest.starts(with: "<?xml".utf8)
                            && rest.count > 5 && [0x20, 0x09, 0x0A, 0x0D].contains(rest[5])
                        if !isDeclaration {
                            return SCXMLImportError(.processingInstruction, line: line, column: nil)
                        }
                    }
                }
                index += 1
            }
            return nil
        }
        if let failure { throw failure }
    }

    private func fail(_ reason: SCXMLImportError.Reason, _ parser: XMLParser) {
        guard failure == nil else { return }
        failure = SCXMLImportError(reason, line: max(1, parser.lineNumber), column: Self.column(parser))
        parser.abortParsing()
    }

    private func resolve(_ qualified: String, isAttribute: Bool) -> SCXMLName {
        let prefix: String?
        let local: String
        if let colon = qualified.firstIndex(of: ":") {
            prefix = String(qualified[..<colon])
            local = String(qualified[qualified.index(after: colon)...])
        } else {
            prefix = nil
            local = qualified
        }
        var namespace: String?
        if prefix != nil || !isAttribute {
            let key = prefix ?? ""
            for scope in namespaceScopes.reversed() {
                if let uri = scope[key] {
                    namespace = uri.isEmpty ? nil : uri
                    break
                }
            }
            if prefix == "xml" { namespace = "http://www.w3.org/XML/1998/namespace" }
            // An undeclared prefix keeps a namespace of its own so it never passes for SCXML.
            if namespace == nil, let prefix { namespace = "urn:undeclared-prefix:" + prefix }
        }
        return SCXMLName(namespace: namespace, local: local, qualified: qualified)
    }

    func parser(
        _ parser: XMLParser,
        didStartElement elementName: String,
        namespaceURI: String?,
        qualifiedName: String?,
        attributes: [String: String]
    ) {
        guard failure == nil else { return }
        guard stack.count < SCXMLImportError.maximumNestingDepth else {
            fail(.nestingTooDeep(limit: SCXMLImportError.maximumNestingDepth), parser)
            return
        }
        var scope: [String: String] = [:]
        for (key, value) in attributes {
            if key == "xmlns" {
                scope[""] = value
            } else if key.hasPrefix("xmlns:") {
                scope[String(key.dropFirst(6))] = value
            }
        }
        namespaceScopes.append(scope)
        var resolved: [(name: SCXMLName, value: String)] = []
        resolved.reserveCapacity(attributes.count)
        for (key, value) in attributes.sorted(by: { $0.key < $1.key })
        where key != "xmlns" && !key.hasPrefix("xmlns:") {
            resolved.append((resolve(key, isAttribute: true), value))
        }
        let position = startOfTag(line: parser.lineNumber, column: parser.columnNumber)
        stack.append(
            SCXMLElement(
                name: resolve(elementName, isAttribute: false),
                attributes: resolved,
                children: [],
                hasText: false,
                line: position.line,
                column: position.column
            )
        )
    }

    func parser(
        _ parser: XMLParser,
        didEndElement elementName: String,
        namespaceURI: String?,
        qualifiedName: String?
    ) {
        guard failure == nil, let element = stack.popLast() else { return }
        namespaceScopes.removeLast()
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard failure == nil, !stack.isEmpty else { return }
        if string.contains(where: { !$0.isWhitespace }) {
            stack[stack.count - 1].hasText = true
        }
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        guard failure == nil, !stack.isEmpty else { return }
        if block.contains(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }) {
            stack[stack.count - 1].hasText = true
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        guard failure == nil else { return }
        failure = SCXMLImportError(
            reason(forParserError: (parseError as NSError).code),
            line: max(1, parser.lineNumber),
            column: Self.column(parser)
        )
    }
}

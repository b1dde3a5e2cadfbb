/// Why an SCXML document could not be imported into a ``MachineDefinition``, and where.
///
/// Every error names the offending element (and attribute or value when there is one) and the
/// line and column where the parser met it, so a message can point at the document:
///
/// ```swift
/// do {
///     let definition = try MachineDefinition(scxml: data)
/// } catch let error as SCXMLImportError {
///     print(error)  // "line 12, column 30: <assign> is not supported (...)"
/// }
/// ```
public struct SCXMLImportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Hashable, Sendable {
        /// The bytes are not well-formed XML. `code` is the XML parser's error code (libxml2's
        /// `xmlParserErrors` on Linux, `NSXMLParserError` on Apple platforms, the same numbers);
        /// the message says in words what the common codes mean.
        case malformedXML(code: Int)
        /// The document holds no element at all (it is empty, or only whitespace and comments).
        case emptyDocument
        /// An element gives the same attribute twice.
        case duplicateAttribute
        /// An end tag does not match the element it closes: `expected` is the open element.
        case mismatchedTag(expected: String)
        /// The document ends while `element` is still open.
        case unclosedElement(String)
        /// Something other than comments and whitespace follows the root element.
        case contentAfterRootElement
        /// A single text, attribute value or name is longer than the XML parser accepts
        /// (`limit` bytes: libxml2's limit without `XML_PARSE_HUGE`, which `XMLParser` does not
        /// expose). Documents of any size are read; one token of them may not exceed it.
        case sizeLimitExceeded(limit: Int)
        /// The `<scxml>` element declares no state: a machine needs at least one.
        case noStates
        /// A `<transition target>` names a state that does not exist.
        case unknownTarget(String)
        /// An `initial` attribute names a state that is not inside its element (`state` is the
        /// element's id; `nil` for `<scxml initial>`, where the state does not exist at all).
        case invalidInitial(String, state: String?)
        /// A condition (`cond="In('id')"`, `rewind:guard`) names a state that does not exist.
        case unknownStateInCondition(String)
        /// The file could not be read.
        case unreadableFile(path: String, description: String)
        /// The document's root element is not `<scxml>`.
        case notSCXML(rootElement: String)
        /// The document is not valid UTF-8 (Rewind reads UTF-8 and ASCII documents only).
        case notUTF8
        /// The document has a `<!DOCTYPE ...>` declaration. Rewind refuses DTDs: entity expansion
        /// is a classic denial-of-service vector and SCXML never needs them.
        case documentTypeDeclaration
        /// The document has a processing instruction (`<?target data?>`) other than the XML
        /// declaration. SCXML never needs them, and swift-corelibs-foundation's `XMLParser`
        /// crashes on one without data (`<?target?>`).
        case processingInstruction
        /// Elements are nested deeper than ``SCXMLImportError/maximumNestingDepth``.
        case nestingTooDeep(limit: Int)
        /// An SCXML element Rewind does not support because it needs a data model or external
        /// services (`<datamodel>`, `<script>`, `<assign>`, `<invoke>`, `<foreach>`, ...).
        case unsupportedElement(String)
        /// An element that is not part of SCXML (or of Rewind's extension namespace).
        case unknownElement(String)
        /// A known element in a place where it is not allowed (for example `<state>` in `<final>`).
        case misplacedElement(String, parent: String)
        /// A required child element is missing (the `<transition>` of `<initial>`).
        case missingElement(String, parent: String)
        /// An attribute the element does not support (for example `eventexpr` on `<send>`).
        case unsupportedAttribute(element: String, attribute: String)
        /// A required attribute is missing.
        case missingAttribute(element: String, attribute: String)
        /// An attribute's value is not one Rewind understands; `expected` says what would be.
        case invalidAttributeValue(element: String, attribute: String, value: String, expected: String)
        /// A `cond` that is not `In('id')` or `!In('id')`: Rewind has no data model to evaluate
        /// other expressions.
        case unsupportedCondition(String)
        /// Two states declare the same `id`.
        case duplicateStateID(String)
        /// Character data where SCXML allows only elements.
        case unexpectedText(element: String)
    }

    /// What went wrong.
    public var reason: Reason

    /// The 1-based line where the parser met the problem, when known.
    public var line: Int?

    /// The 1-based column where the parser met the problem, when known.
    public var column: Int?

    /// The longest single token (text, attribute value, name) the XML parser accepts, in bytes:
    /// libxml2's `XML_MAX_TEXT_LENGTH`.
    public static let parserTokenLimit = 10_000_000

    /// The deepest element nesting the importer accepts. Real statecharts stay far below it; the
    /// bound keeps hostile documents from exhausting the stack.
    public static let maximumNestingDepth = 100

    /// Creates an error.
    public init(_ reason: Reason, line: Int? = nil, column: Int? = nil) {
        self.reason = reason
        self.line = line
        self.column = column
    }

    /// A one-line message naming the problem and where it is.
    public var description: String {
        var location = ""
        if let line {
            location = "line \(line)"
            if let column { location += ", column \(column)" }
            location += ": "
        }
        return "SCXML import failed: " + location + Self.explain(reason)
    }

    private static func explain(_ reason: Reason) -> String {
        switch reason {
        case .malformedXML(let code):
            return "malformed XML: " + (malformedXMLWords[code] ?? "the XML parser reported error \(code)")
        case .emptyDocument:
            return "the document is empty (it has no root element)"
        case .duplicateAttribute:
            return "malformed XML: an element gives the same attribute twice"
        case .mismatchedTag(let expected):
            return "malformed XML: the end tag does not match the open element <\(expected)>"
        case .unclosedElement(let element):
            return "malformed XML: the document ends before <\(element)> is closed"
        case .contentAfterRootElement:
            return "malformed XML: content follows the root element"
        case .sizeLimitExceeded(let limit):
            return "the document has a text, attribute value or name over the XML parser's size limit of \(limit) bytes"
        case .noStates:
            return "<scxml> declares no state; a machine needs at least one"
        case .unknownTarget(let id):
            return "the transition's target '\(id)' is not a state of the document"
        case .invalidInitial(let id, let state):
            if let state { return "the initial state '\(id)' of '\(state)' is not a state inside it" }
            return "the initial state '\(id)' of <scxml> is not a state of the document"
        case .unknownStateInCondition(let id):
            return "the condition In('\(id)') names a state that is not in the document"
        case .unreadableFile(let path, let description):
            return "cannot read \(path): \(description)"
        case .notSCXML(let root):
            return "the root element is <\(root)>, not <scxml>"
        case .notUTF8:
            return "the document is not valid UTF-8"
        case .documentTypeDeclaration:
            return "the document has a <!DOCTYPE> declaration; DTDs are not accepted"
        case .processingInstruction:
            return "the document has a processing instruction (<?…?>) other than the XML declaration; none is accepted"
        case .nestingTooDeep(let limit):
            return "elements are nested deeper than \(limit) levels"
        case .unsupportedElement(let element):
            return "<\(element)> is not supported (Rewind has no SCXML data model, scripts or invocations)"
        case .unknownElement(let element):
            return "<\(element)> is not an SCXML element"
        case .misplacedElement(let element, let parent):
            return "<\(element)> is not allowed inside <\(parent)>"
        case .missingElement(let element, let parent):
            return "<\(parent)> needs a <\(element)> child"
        case .unsupportedAttribute(let element, let attribute):
            return "<\(element)> does not support the attribute '\(attribute)'"
        case .missingAttribute(let element, let attribute):
            return "<\(element)> needs the attribute '\(attribute)'"
        case .invalidAttributeValue(let element, let attribute, let value, let expected):
            return "<\(element) \(attribute)=\"\(value)\">: expected \(expected)"
        case .unsupportedCondition(let expression):
            return "the condition '\(expression)' is not supported (only In('id') and !In('id'))"
        case .duplicateStateID(let id):
            return "the state id '\(id)' is declared twice"
        case .unexpectedText(let element):
            return "<\(element)> contains text; SCXML allows only elements there"
        }
    }

    /// The common XML parser errors (libxml2's `xmlParserErrors`, which `NSXMLParserError`
    /// mirrors), in words.
    private static let malformedXMLWords: [Int: String] = [
        1: "the XML parser failed internally",
        2: "the parser ran out of memory",
        3: "the document starts with something other than an XML declaration or an element",
        4: "the document is empty",
        5: "content after the root element, or the document ends early",
        6: "invalid hexadecimal character reference",
        7: "invalid decimal character reference",
        8: "invalid character reference",
        9: "a character that XML does not allow",
        23: "an entity reference without its closing ';'",
        24: "an entity reference without a name",
        26: "a reference to an undeclared entity",
        38: "'<' inside an attribute value",
        39: "a malformed attribute",
        40: "an attribute value without its closing quote",
        41: "an attribute without a value",
        42: "an element gives the same attribute twice",
        45: "a comment without its closing '-->'",
        63: "a CDATA section without its closing ']]>'",
        64: "a malformed XML declaration",
        65: "a space is needed between attributes",
        68: "a name is missing where one is needed",
        73: "a start tag without its closing '>'",
        74: "an end tag without its closing '>'",
        76: "an end tag that does not match the open element",
        77: "the document ends inside a tag",
        85: "an end tag that does not match the open element",
        96: "invalid UTF-8",
        201: "an undeclared namespace prefix",
    ]
}

/// A decimal number as its significant digits and a power of ten: ±`digits` × 10^`exponent`, the
/// digits without leading or trailing zeros (none at all for zero). Two texts stand for the same
/// number exactly when their `DecimalDigits` are equal; ``JSONNumber`` uses it to decide how it
/// holds a number and to compare a text with a `Double`'s shortest text.
struct DecimalDigits: Equatable {
    /// Whether the number is negative (or `-0`).
    var negative: Bool
    /// The significant digits as ASCII bytes, the first and the last not `0`.
    var digits: [UInt8]
    /// The power of ten of the last digit.
    var exponent: Int

    /// Exponents are clamped to this magnitude while a text is read, so that no arithmetic
    /// overflows; no number a `Double` or an integer holds comes near it.
    private static let exponentLimit = 1_000_000_000

    /// The number a JSON number text stands for (RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)?
    /// ([eE] [+-]? [0-9]+)?`), or `nil` when the bytes are not one.
    init?(jsonNumberText bytes: UnsafeBufferPointer<UInt8>) {
        self.init(scanning: bytes, strict: true)
    }

    /// The number a finite `Double`'s `description` stands for (`1.0`, `1e-07`, `5e-324`,
    /// `1.152921504606847e+18`).
    init(finiteDoubleText text: String) {
        var text = text
        // Swift prints every finite Double in this syntax; zero stands in if it ever did not.
        self =
            text.withUTF8 { DecimalDigits(scanning: $0, strict: false) }
            ?? DecimalDigits(negative: false, digits: [], exponent: 0)
    }

    /// The integer `value`.
    init(integer value: some BinaryInteger) {
        var text = String(value)
        self =
            text.withUTF8 { DecimalDigits(scanning: $0, strict: false) }
            ?? DecimalDigits(negative: false, digits: [], exponent: 0)
    }

    private init(negative: Bool, digits: [UInt8], exponent: Int) {
        self.negative = negative
        self.digits = digits
        self.exponent = exponent
    }

    /// Reads `[-] digits [. digits] [(e|E) [+|-] digits]`; `strict` also refuses leading zeros
    /// of the integer part, as JSON does.
    private init?(scanning bytes: UnsafeBufferPointer<UInt8>, strict: Bool) {
        var index = 0
        let count = bytes.count
        func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

        negative = index < count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var all: [UInt8] = []
        let integerStart = index
        while index < count, isDigit(bytes[index]) {
            all.append(bytes[index])
            index += 1
        }
        let integerCount = index - integerStart
        guard integerCount > 0 else { return nil }
        if strict, integerCount > 1, bytes[integerStart] == UInt8(ascii: "0") { return nil }
        var fractionCount = 0
        if index < count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < count, isDigit(bytes[index]) {
                all.append(bytes[index])
                fractionCount += 1
                index += 1
            }
            guard fractionCount > 0 else { return nil }
        }
        var written = 0
        if index < count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var exponentNegative = false
            if index < count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            let exponentStart = index
            while index < count, isDigit(bytes[index]) {
                if written < Self.exponentLimit { written = written * 10 + Int(bytes[index] &- UInt8(ascii: "0")) }
                index += 1
            }
            guard index > exponentStart else { return nil }
            if exponentNegative { written = -written }
        }
        guard index == count else { return nil }

        // Drop leading zeros, then trailing ones into the exponent.
        let firstSignificant = all.firstIndex { $0 != UInt8(ascii: "0") }
        guard let firstSignificant, let lastSignificant = all.lastIndex(where: { $0 != UInt8(ascii: "0") }) else {
            digits = []
            exponent = 0
            return
        }
        digits = Array(all[firstSignificant...lastSignificant])
        exponent = written - fractionCount + (all.count - 1 - lastSignificant)
    }

    /// The canonical text: plain digits for integers below 10^21, plain decimals down to 10^-7,
    /// exponent notation (`1.5e+30`, `2e-9`) otherwise; `0` or `-0` for zero.
    var canonicalText: String {
        guard let first = digits.first else { return negative ? "-0" : "0" }
        var text: [UInt8] = negative ? [UInt8(ascii: "-")] : []
        let scientific = digits.count - 1 + exponent  // the power of ten of the first digit
        let zero = UInt8(ascii: "0")
        if exponent >= 0, scientific < 21 {
            text += digits
            text += repeatElement(zero, count: exponent)
        } else if exponent < 0, scientific >= -7, scientific < 21 {
            let integerCount = digits.count + exponent
            if integerCount > 0 {
                text += digits[..<integerCount]
                text.append(UInt8(ascii: "."))
                text += digits[integerCount...]
            } else {
                text += [zero, UInt8(ascii: ".")]
                text += repeatElement(zero, count: -integerCount)
                text += digits
            }
        } else {
            text.append(first)
            if digits.count > 1 {
                text.append(UInt8(ascii: "."))
                text += digits.dropFirst()
            }
            text.append(UInt8(ascii: "e"))
            text.append(scientific < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            text += String(scientific.magnitude).utf8
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// How ``JSONNumber`` holds this number: as an `Int64` or `UInt64` when it is an integer in
    /// their range, as a `Double` when the `Double`'s shortest text is this very number, else as
    /// the canonical text.
    var storage: JSONNumber.Storage {
        if digits.isEmpty { return negative ? .double(-0.0) : .integer(0) }
        if exponent >= 0, digits.count + exponent <= 20, let magnitude = integerMagnitude {
            if !negative {
                if let integer = Int64(exactly: magnitude) { return .integer(integer) }
                return .unsigned(magnitude)
            }
            if magnitude <= UInt64(Int64.max) { return .integer(-Int64(magnitude)) }
            if magnitude == UInt64(Int64.max) + 1 { return .integer(.min) }
        }
        let text = canonicalText
        if let double = Double(text), double.isFinite, double != 0,
            DecimalDigits(finiteDoubleText: double.description) == self
        {
            return .double(double)
        }
        return .decimal(text)
    }

    /// The magnitude of an integer (`exponent >= 0`), when it fits a `UInt64`.
    private var integerMagnitude: UInt64? {
        var magnitude: UInt64 = 0
        for digit in digits {
            let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = shifted.addingReportingOverflow(UInt64(digit &- UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            magnitude = sum
        }
        for _ in 0..<exponent {
            let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            magnitude = shifted
        }
        return magnitude
    }
}

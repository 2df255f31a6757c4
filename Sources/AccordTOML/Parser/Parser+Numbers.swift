/// Integers (decimal, `0x`, `0o`, `0b`) and floats, with TOML's rules: underscores only
/// between digits, no leading zeros in decimals (exponents may have them), signs only
/// on decimals, and every integer must fit in 64 bits.
extension Parser {
    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }

    mutating func parseNumber() throws(TOMLError) -> TOMLValue {
        let start = pos
        var negative = false
        var signed = false
        if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") {
            negative = peek() == UInt8(ascii: "-")
            signed = true
            pos += 1
        }
        if peek() == UInt8(ascii: "0") {
            let radix: Int64
            switch peek(1) {
            case UInt8(ascii: "x"): radix = 16
            case UInt8(ascii: "o"): radix = 8
            case UInt8(ascii: "b"): radix = 2
            default: radix = 0
            }
            if radix != 0 {
                if signed { throw error("a sign is not allowed on a \(radixName(radix)) integer", at: start) }
                pos += 2
                return .integer(try parseRadixDigits(radix, start: start))
            }
        }
        guard Self.isDigit(peek()) else {
            throw error("expected digits in number, found \(describe(pos))")
        }
        // Integer part: accumulate negatively so that Int64.min fits.
        var value: Int64 = 0
        var overflow = false
        let intStart = pos
        try scanDigits { d in
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.subtractingReportingOverflow(Int64(d))
            value = s
            overflow = overflow || o1 || o2
        }
        if bytes[intStart] == UInt8(ascii: "0") && pos - intStart > 1 {
            throw error("leading zeros are not allowed in a decimal number", at: intStart)
        }
        var isFloat = false
        if peek() == UInt8(ascii: ".") {
            isFloat = true
            pos += 1
            guard Self.isDigit(peek()) else { throw error("expected a digit after '.' in float, found \(describe(pos))") }
            try scanDigits { _ in }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            isFloat = true
            pos += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { pos += 1 }
            guard Self.isDigit(peek()) else { throw error("expected a digit in float exponent, found \(describe(pos))") }
            try scanDigits { _ in }
        }
        try checkNumberEnd(start)
        if isFloat {
            return .float(try makeDouble(start))
        }
        if !negative {
            let (v, o) = (0 as Int64).subtractingReportingOverflow(value)
            value = v
            overflow = overflow || o
        }
        if overflow { throw error("integer does not fit in 64 bits", at: start) }
        return .integer(value)
    }

    /// Digits with single underscores between them; `pos` at the first digit.
    private mutating func scanDigits(_ digit: (UInt8) -> Void) throws(TOMLError) {
        while pos < end {
            let b = bytes[pos]
            if Self.isDigit(b) {
                digit(b &- UInt8(ascii: "0"))
                pos += 1
            } else if b == UInt8(ascii: "_") {
                guard Self.isDigit(peek(1)) else { throw error("'_' must be between two digits") }
                pos += 1
            } else {
                return
            }
        }
    }

    private mutating func parseRadixDigits(_ radix: Int64, start: Int) throws(TOMLError) -> Int64 {
        var value: Int64 = 0
        var overflow = false
        var any = false
        while pos < end {
            let b = bytes[pos]
            if let d = Self.hexValue(b), Int64(d) < radix {
                let (m, o1) = value.multipliedReportingOverflow(by: radix)
                let (s, o2) = m.addingReportingOverflow(Int64(d))
                value = s
                overflow = overflow || o1 || o2
                any = true
                pos += 1
            } else if b == UInt8(ascii: "_") && any {
                guard let d = Self.hexValue(peek(1)), Int64(d) < radix else {
                    throw error("'_' must be between two digits")
                }
                pos += 1
            } else {
                break
            }
        }
        guard any else { throw error("expected \(radixName(radix)) digits after '0\(radixLetter(radix))', found \(describe(pos))") }
        try checkNumberEnd(start)
        if overflow { throw error("integer does not fit in 64 bits", at: start) }
        return value
    }

    /// A number must end at a delimiter: `12ab`, `1.2.3` and `0x1g` are one bad token,
    /// not a number followed by junk.
    private mutating func checkNumberEnd(_ start: Int) throws(TOMLError) {
        let b = peek()
        if Key.isBare(b) || b == UInt8(ascii: ".") || b == UInt8(ascii: "+") || b == UInt8(ascii: ":") {
            throw error("invalid number \(describeWord(start))", at: start)
        }
    }

    /// The float text without underscores, through the standard library's correctly
    /// rounded conversion.
    private mutating func makeDouble(_ start: Int) throws(TOMLError) -> Double {
        var text = ""
        text.reserveCapacity(pos - start)
        for k in start..<pos where bytes[k] != UInt8(ascii: "_") {
            text.unicodeScalars.append(Unicode.Scalar(bytes[k]))
        }
        guard let d = Double(text) else { throw error("invalid float \(describeWord(start))", at: start) }
        return d
    }

    /// `inf`, `nan`, with an optional sign.
    mutating func parseSpecialFloat() throws(TOMLError) -> Double {
        let start = pos
        var negative = false
        if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") {
            negative = peek() == UInt8(ascii: "-")
            pos += 1
        }
        let a = peek(), b = peek(1), c = peek(2)
        let value: Double
        if a == UInt8(ascii: "i") && b == UInt8(ascii: "n") && c == UInt8(ascii: "f") {
            value = negative ? -.infinity : .infinity
        } else if a == UInt8(ascii: "n") && b == UInt8(ascii: "a") && c == UInt8(ascii: "n") {
            value = negative ? -Double.nan : .nan
        } else {
            throw error("expected a value, found \(describeWord(start))", at: start)
        }
        pos += 3
        if Key.isBare(peek()) || peek() == UInt8(ascii: ".") {
            throw error("expected a value, found \(describeWord(start))", at: start)
        }
        return value
    }

    private func radixName(_ radix: Int64) -> String {
        radix == 16 ? "hexadecimal" : radix == 8 ? "octal" : "binary"
    }

    private func radixLetter(_ radix: Int64) -> String {
        radix == 16 ? "x" : radix == 8 ? "o" : "b"
    }
}

import AccordTesting
import Testing
@testable import AccordCRDT

/// JSON strings: the writer's whole-string fast path and the parser's escape-free fast
/// path give exactly what the scalar-by-scalar forms give, on random strings mixing
/// ASCII, characters that must be escaped, multi-byte UTF-8 and escapes in the input.
@Suite struct JSONStringTests {
    /// The scalar-by-scalar writer (the form before the fast path), as the reference.
    static func reference(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if u.value < 0x20 {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }

    @Test func stringsWriteAndParseLikeTheReference() throws {
        let pool: [Unicode.Scalar] = ["a", "Z", " ", "\"", "\\", "/", "\n", "\u{01}", "\u{1F}", "\u{7F}", "é", "\u{301}", "€", "😀", "\u{FFFD}"]
        var rng = SplitMix64(seed: 20)
        for round in 0..<2_000 {
            var s = String.UnicodeScalarView()
            for _ in 0..<Int(rng.next() % 12) { s.append(pool[Int(rng.next() % UInt64(pool.count))]) }
            let string = String(s)
            var written = ""
            AnyValue.writeJSONString(string, to: &written)
            #expect(written == Self.reference(string), "round \(round)")
            #expect(Array(written.utf8) == Array(Self.reference(string).utf8), "round \(round)")
            let parsed = try AnyValue(jsonText: written)
            #expect(parsed == .string(string), "round \(round)")
            if case .string(let back) = parsed { #expect(Array(back.utf8) == Array(string.utf8), "round \(round)") }
        }
    }

    @Test func escapesAndBadBytesInStrings() throws {
        #expect(try AnyValue(jsonText: #"["a\u00e9b","\ud83d\ude00","x\/y","\ud800"]"#)
            == .array([.string("aéb"), .string("😀"), .string("x/y"), .string("\u{FFFD}")]))
        for bad in [[0x22, 0xFF, 0x22], [0x22, 0x61, 0x0A, 0x22], [0x22, 0x61], [0x22, 0xC3, 0x22]] as [[UInt8]] {
            var parser = JSONParser(bad)
            let error = #expect(throws: AccordError.self) { try parser.parseDocument() }
            #expect(error?.code == .malformedJSON)
        }
    }

    /// The checked decoding strings use answers as `String(validating:as:)` does, on
    /// random bytes biased to UTF-8 lead and continuation bytes.
    @Test func checkedDecodingAgreesWithStandardValidation() {
        let pool: [UInt8] = [0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC2, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xED, 0xA0, 0xEF, 0xBF, 0xBD, 0xF0, 0x9F, 0x98, 0x80, 0xF4, 0x90, 0xFF]
        var rng = SplitMix64(seed: 8)
        var valid = 0
        for _ in 0..<20_000 {
            let bytes = (0..<Int(rng.next() % 7)).map { _ in pool[Int(rng.next() % UInt64(pool.count))] }
            let expected = String(validating: bytes, as: UTF8.self)
            #expect(UTF8Text.string(bytes) == expected, "\(bytes)")
            #expect(UTF8Text.string(bytes[...]) == expected, "\(bytes)")
            if expected != nil { valid += 1 }
        }
        #expect(valid > 2_000)
    }
}

import AccordTesting
import Foundation
import Testing

@testable import AccordServer

/// The JWS segment encoding, checked against Foundation's base64 as an oracle.
@Suite struct Base64URLTests {
    /// Foundation's standard base64, turned into unpadded base64url.
    static func oracle(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test(arguments: 0..<40) func encodesLikeFoundationAndDecodesBack(length: Int) {
        // Bytes that reach both ends of the alphabet (0xFB 0xFF gives '-' and '_').
        var generator = SplitMix64(seed: UInt64(length))
        for _ in 0..<20 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Base64URL.encode(bytes)
            #expect(encoded == Self.oracle(bytes), "\(bytes)")
            #expect(Base64URL.decode(Array(encoded.utf8)) == bytes, "\(bytes)")
        }
        let edges = [UInt8](repeating: 0xFB, count: length).enumerated().map { $0.offset % 2 == 0 ? $0.element : 0xFF }
        #expect(Base64URL.encode(edges) == Self.oracle(edges))
    }

    @Test(arguments: ["A", "AAAAA", "AB", "AAB", "A=", "AA==", "AA+A", "AA/A", "AA A", "AA\n"])
    func refusesNonCanonicalText(text: String) {
        #expect(Base64URL.decode(Array(text.utf8)) == nil)
    }

    @Test func emptyIsEmpty() {
        #expect(Base64URL.encode([]) == "")
        #expect(Base64URL.decode([UInt8]()) == [])
    }
}

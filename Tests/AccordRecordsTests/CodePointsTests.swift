@testable import AccordRecords
import AccordTesting
import Testing

/// ``CodePoints`` orders strings as SQLite's BINARY collation orders their UTF-8.
@Suite struct CodePointsTests {
    /// The reference order: the UTF-8 bytes compared one by one.
    private static func bytesLess(_ a: String, _ b: String) -> Bool {
        Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
    }

    @Test func comparesByBytesWithoutNormalising() {
        #expect(!CodePoints.equal("é", "e\u{301}"))
        #expect(CodePoints.less("e\u{301}", "é"))  // 0x65 before 0xC3
        #expect(CodePoints.compare("é", "e\u{301}") == 1)
        #expect(CodePoints.compare("abc", "abc") == 0)
        #expect(CodePoints.less("", "a"))
        #expect(CodePoints.less("ab", "abc"))
        #expect(CodePoints.compare("abc", "ab") == 1)
        #expect(CodePoints.less("a\u{0}", "a\u{1}"))
        #expect(CodePoints.less("a", "a\u{0}"))
        // U+FFFF (EF BF BF) before U+10000 (F0 90 80 80): UTF-8 order, not UTF-16's.
        #expect(CodePoints.less("\u{FFFF}", "\u{10000}"))
        // Long strings (not stored inline) that differ late.
        let long = String(repeating: "x", count: 100)
        #expect(CodePoints.less(long + "a", long + "b"))
        #expect(CodePoints.equal(long + "é", long + "é"))
    }

    @Test func sortsIDsLikeTheBytesDo() {
        let ulids = ["01J9Z3K4M5N6P7Q8R9S0T1V2W3", "01J9Z3K4M5N6P7Q8R9S0T1V2W2", "01J9Z3K4M5ZZZZZZZZZZZZZZZZ", "01J9Z3K4M4AAAAAAAAAAAAAAAA"]
        #expect(CodePoints.sorted(ulids) == ulids.sorted(by: Self.bytesLess))
        let awkward = ["", "a", "a\u{0}", "a\u{0}\u{0}", "é", "e\u{301}", "\u{10000}", "\u{FFFF}", "ab", "a\u{0}b"]
        #expect(CodePoints.sorted(awkward) == awkward.sorted(by: Self.bytesLess))
        #expect(CodePoints.sorted(Set(["b", "a"])) == ["a", "b"])
        #expect(CodePoints.sorted([String]()) == [])
    }

    /// Random strings from a small alphabet (ASCII, NUL, two- to four-byte characters),
    /// of lengths around the 16-byte prefix the sort reads first, so prefixes tie often.
    @Test func sortAgreesWithBytesOnRandomStrings() {
        let alphabet: [Character] = ["a", "b", "\u{0}", "é", "e", "\u{301}", "€", "😀", "Z"]
        for seed in 0..<200 {
            var random = SplitMix64(seed: UInt64(seed))
            let strings = (0..<Int(random.next() % 40)).map { _ in
                String((0..<Int(random.next() % 20)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            }
            let expected = strings.sorted(by: Self.bytesLess)
            let sorted = CodePoints.sorted(strings)
            #expect(sorted.map { Array($0.utf8) } == expected.map { Array($0.utf8) }, "seed \(seed)")
            for (a, b) in zip(strings, strings.reversed()) {
                #expect(CodePoints.less(a, b) == Self.bytesLess(a, b), "seed \(seed)")
                #expect(CodePoints.equal(a, b) == Array(a.utf8).elementsEqual(Array(b.utf8)), "seed \(seed)")
            }
        }
    }
}

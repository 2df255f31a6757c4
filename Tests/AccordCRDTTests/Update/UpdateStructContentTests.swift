import Testing
@testable import AccordCRDT

/// Edge cases of cutting content (StructContent.slice / prefix).
@Suite struct UpdateStructContentTests {
    /// Cutting at either end used to index outside the string (s[-1], s[count]) and trap.
    @Test func cuttingAtTheEndsDoesNotTrap() {
        let s = StructContent.string(Array("ab".utf16))
        #expect(s.prefix(0) == .string([]))
        #expect(s.prefix(2) == s)
        #expect(s.slice(from: 2) == .string([]))
        #expect(s.slice(from: 0) == s)
    }

    /// Cutting between the halves of a surrogate pair leaves U+FFFD on each side (Yjs's
    /// ContentString.splice).
    @Test func cuttingASurrogatePairReplacesBothHalves() {
        let s = StructContent.string(Array("a\u{1F600}b".utf16))   // a, lead, trail, b
        #expect(s.prefix(2) == .string([0x61, 0xFFFD]))
        #expect(s.slice(from: 2) == .string([0xFFFD, 0x62]))
        #expect(s.prefix(3) == .string([0x61, 0xD83D, 0xDE00]))
        #expect(s.slice(from: 1) == .string([0xD83D, 0xDE00, 0x62]))
    }
}

@testable import AccordRecords
import Testing

@Suite struct ValueRulesTests {
    @Test func stringSetMembersAreDistinctByCodePoints() {
        let set = StringSet(["é", "e\u{301}", "a", "é"])
        #expect(set.count == 3)
        #expect(set.contains("e\u{301}"))
        #expect(set.members == ["a", "e\u{301}", "é"])
        #expect(StringSet(["é"]) != StringSet(["e\u{301}"]))
    }

    @Test func caseFoldingIsFull() {
        #expect(CaseFolding.fold("STRASSE") == "strasse")
        #expect(CaseFolding.fold("Straße") == "strasse")
        #expect(CaseFolding.fold("ẞ") == "ss")
        #expect(CaseFolding.fold("ﬁle") == "file")
        #expect(CaseFolding.fold("ΣΊΣΥΦΟΣ") == CaseFolding.fold("σίσυφος"))
        #expect(CaseFolding.fold("ς") == "σ")
        #expect(CaseFolding.fold("K") == "k")  // KELVIN SIGN
        #expect(CaseFolding.fold("e\u{301}") == "e\u{301}")
        #expect(CaseFolding.fold("Plain ASCII 123") == "plain ascii 123")
    }

    @Test func datesHaveOneCanonicalForm() {
        #expect(ISODate.isCanonical("2026-12-01T09:30:00.000Z"))
        for text in ["2026-12-01", "2026-12-01T09:30:00Z", "2026-12-01T09:30:00.000+01:00", "2026-13-01T09:30:00.000Z",
                     "2026-12-01T24:00:00.000Z", "2026-12-01 09:30:00.000Z"] {
            #expect(!ISODate.isCanonical(text), "\(text)")
        }
        #expect(ISODate.text(secondsSince1970: 0) == "1970-01-01T00:00:00.000Z")
        #expect(ISODate.text(secondsSince1970: 1_764_581_400.123) == "2025-12-01T09:30:00.123Z")
        #expect(ISODate.text(secondsSince1970: -0.001) == "1969-12-31T23:59:59.999Z")
        #expect(ISODate.text(secondsSince1970: 951_782_400) == "2000-02-29T00:00:00.000Z")
    }
}

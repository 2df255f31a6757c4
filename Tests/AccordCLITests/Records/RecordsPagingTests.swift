import AccordCRDT
import Foundation
import Testing

/// `--limit` and `--cursor` visit every record once, in the query's order, and
/// `--documents` scopes every verb.
@Suite struct RecordsPagingTests {
    @Test(arguments: [1, 4, 7, 35, 50]) func pagesVisitEveryRecordOnce(limit: Int) throws {
        let fixture = try RecordsFixture()
        // Many ties on hours, across two documents, so the order leans on id and document.
        for (document, range) in [("a", 0..<20), ("b", 10..<25)] {
            let lines = range.map { #"{"id":"r\#($0)","hours":\#($0 % 4),"category":"c\#($0 % 3)"}"# }
            try #require(try fixture.put(document, lines).status == 0)
        }
        let everything = try fixture.json("query", ["--sort", "hours:-1,category:1"])
        let expected = try #require(everything["data"]?.arrayValue)
        #expect(expected.count == 35)
        var seen: [AnyValue] = []
        var cursor: String?
        var pages = 0
        repeat {
            var extra = ["--sort", "hours:-1,category:1", "--limit", String(limit)]
            if let cursor { extra += ["--cursor", cursor] }
            let page = try fixture.json("query", extra)
            let data = try #require(page["data"]?.arrayValue)
            #expect(data.count <= limit)
            seen += data
            cursor = page["nextCursor"]?.stringValue
            #expect(page["hasMore"] == .bool(cursor != nil))
            pages += 1
            try #require(pages <= 40, "paging does not end")
        } while cursor != nil
        #expect(seen == expected)
        // A full last page says so: no extra empty page.
        #expect(pages == (35 + limit - 1) / limit)
    }

    @Test func documentsScopeQueryCountAndAggregate() throws {
        let fixture = try RecordsRoundTripTests.seeded()
        #expect(try fixture.json("query", ["--documents", "b"]).recordIDs == ["t4"])
        #expect(try fixture.json("query", ["--documents", "a,b", "--sort", "hours:1"]).recordIDs.count == 4)
        #expect(try fixture.json("count", [#"{"category":"home"}"#, "--documents", "a"])["count"] == .int(2))
        #expect(try fixture.json("aggregate", ["--documents", "b"]).jsonText == #"{"rows":[{"value":1}]}"#)
        #expect(try fixture.json("aggregate", ["--options", #"{"documents":["a"]}"#]).jsonText == #"{"rows":[{"value":3}]}"#)
        // A document the store does not have is an error, not an empty result.
        let missing = try fixture.run("query", ["--documents", "a,nope"])
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("error: DOCUMENT_NOT_FOUND: "), "\(missing.stderr)")
        // Documents given twice to aggregate is a usage error.
        let twice = try fixture.run("aggregate", ["--documents", "a", "--options", #"{"documents":["b"]}"#])
        #expect(twice.status == 2)
    }
}

import AccordCRDT
import AccordStore
import Foundation
import Testing

/// `accord records put` then `query`, `count` and `aggregate` on the same store, with
/// the exact JSON scripts read.
@Suite struct RecordsRoundTripTests {
    /// Three tasks in document "a" (one with an auto-assigned id), one in "b".
    static func seeded() throws -> RecordsFixture {
        let fixture = try RecordsFixture()
        let a = try fixture.put("a", [
            #"{"id":"t1","title":"Buy milk","category":"home","hours":2,"tags":["urgent","shop"],"slug":"milk"}"#,
            #"{"id":"t2","title":"Write report","category":"work","hours":3.5,"due":"2026-03-01T09:00:00.000Z","tags":["urgent"]}"#,
            "",
            #"{"title":"Call mom","category":"home"}"#,
        ])
        try #require(a.status == 0, "\(a.stderr)")
        let b = try fixture.put("b", [#"{"id":"t4","title":"Fix bike","category":"home","hours":4,"done":true}"#])
        try #require(b.status == 0, "\(b.stderr)")
        return fixture
    }

    @Test func putReportsWhatItWroteAndCreatesTheDocument() throws {
        let fixture = try RecordsFixture()
        #expect(try fixture.state(of: "a") == nil)
        let result = try fixture.put("a", [#"{"id":"t1","title":"x"}"#, #"{"title":"y"}"#])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let output = try AnyValue(jsonText: result.stdout)
        #expect(output["written"] == .int(2))
        let ids = output["ids"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(ids.count == 2)
        #expect(ids.first == "t1")
        // The auto-assigned id is a ULID: 26 characters of Crockford base32.
        #expect(ids.last?.utf8.count == 26)
        #expect(ids.last?.allSatisfy { "0123456789ABCDEFGHJKMNPQRSTVWXYZ".contains($0) } == true)
        // One transaction: one log entry in the store, flushed before the command returned.
        let state = try #require(try fixture.state(of: "a"))
        #expect(state.entries == 1)
        #expect(FileManager.default.fileExists(atPath: fixture.storePath + ".records"))
    }

    @Test func queryPrintsEveryRecordWithIDDocumentAndFieldsInOrder() throws {
        let fixture = try Self.seeded()
        let result = try fixture.run("query")
        #expect(result.status == 0, "\(result.stderr)")
        let page = try AnyValue(jsonText: result.stdout)
        #expect(page["hasMore"] == false)
        #expect(page["nextCursor"] == .null)
        let data = try #require(page["data"]?.arrayValue)
        #expect(data.count == 4)
        // Ordered by id (code points: the ULID's digits first), then document.
        #expect(Array(page.recordIDs.dropFirst()) == ["t1", "t2", "t4"])
        // Defaults were filled on insert; a string set prints sorted; absent fields are left out.
        #expect(data[1].jsonText
            == #"{"id":"t1","document":"a","title":"Buy milk","category":"home","hours":2,"done":false,"tags":["shop","urgent"],"slug":"milk"}"#)
        #expect(data[2].jsonText
            == #"{"id":"t2","document":"a","title":"Write report","category":"work","hours":3.5,"done":false,"due":"2026-03-01T09:00:00.000Z","tags":["urgent"]}"#)
        #expect(data[0]["title"] == "Call mom")
        #expect(data[0]["hours"] == .int(1))
        #expect(data[3]["document"] == "b")
        #expect(data[3]["done"] == true)
    }

    @Test func filtersAndSortsAsTheAPIDoes() throws {
        let fixture = try Self.seeded()
        let page = try fixture.json("query", [#"{"category":"home","hours":{"$gte":2}}"#, "--sort", "hours:-1"])
        #expect(page.recordIDs == ["t4", "t1"])
        let byTitle = try fixture.json("query", [#"{"tags":{"$contains":"urgent"}}"#, "--sort", "title:1"])
        #expect(byTitle.recordIDs == ["t1", "t2"])
        #expect(try fixture.json("count")["count"] == .int(4))
        #expect(try fixture.json("count", [#"{"category":"home"}"#])["count"] == .int(3))
        #expect(try fixture.json("count", [#"{"due":{"$exists":true}}"#])["count"] == .int(1))
    }

    @Test func aggregatePrintsRowsOfGroupKeysThenResults() throws {
        let fixture = try Self.seeded()
        let byCategory = try fixture.run("aggregate", [
            "--options",
            #"{"groupBy":["category"],"operations":[{"type":"count"},{"type":"sum","field":"hours"}],"sort":{"field":"count","direction":-1}}"#,
        ])
        #expect(byCategory.status == 0, "\(byCategory.stderr)")
        #expect(byCategory.stdout
            == #"{"rows":[{"category":"home","count":3,"sum_hours":7},{"category":"work","count":1,"sum_hours":3.5}]}"# + "\n")
        let urgent = try fixture.json("aggregate", [
            "--options", #"{"groupBy":[{"field":"tags","contains":"urgent"}],"operations":[{"type":"count"}],"filter":{"done":false}}"#,
        ])
        #expect(urgent.jsonText == #"{"rows":[{"has_tags_urgent":"false","value":1},{"has_tags_urgent":"true","value":2}]}"#)
        // Without --options: one count over everything.
        #expect(try fixture.json("aggregate").jsonText == #"{"rows":[{"value":4}]}"#)
        let limited = try fixture.json("aggregate", [
            "--options", #"{"groupBy":["category"],"operations":[{"type":"max","field":"hours"}],"sort":{"field":"value","direction":-1},"limit":1}"#,
        ])
        #expect(limited.jsonText == #"{"rows":[{"category":"home","value":4}]}"#)
    }

    @Test func putOnAnExistingRecordWritesOnlyTheFieldsGiven() throws {
        let fixture = try Self.seeded()
        let result = try fixture.put("a", [#"{"id":"t1","hours":5,"tags":["shop"]}"#])
        #expect(result.status == 0, "\(result.stderr)")
        let page = try fixture.json("query", [#"{"id":"t1"}"#])
        #expect(page["data"]?.arrayValue?.first?.jsonText
            == #"{"id":"t1","document":"a","title":"Buy milk","category":"home","hours":5,"done":false,"tags":["shop"],"slug":"milk"}"#)
    }

    @Test func editsMadeOutsideTheCLIAreProjectedBeforeReading() throws {
        let fixture = try Self.seeded()
        #expect(try fixture.json("count")["count"] == .int(4))
        // A Yjs peer's edits, logged by the store while no index follows the document:
        // one record added, then one removed (a transaction that only deletes).
        do {
            let store = try DocumentStore(path: fixture.storePath)
            let opened = try store.open("b")
            let record = try opened.doc.getMap("tasks").setMap("t5")
            try record.set("title", "Added elsewhere")
            try opened.close()
            try store.close()
        }
        #expect(try fixture.json("query", [#"{"title":"Added elsewhere"}"#]).recordIDs == ["t5"])
        do {
            let store = try DocumentStore(path: fixture.storePath)
            let opened = try store.open("a")
            try opened.doc.getMap("tasks").delete("t2")
            try opened.close()
            try store.close()
        }
        #expect(try fixture.json("query", ["--documents", "a"]).recordIDs.contains("t2") == false)
        #expect(try fixture.json("count")["count"] == .int(4))
    }
}

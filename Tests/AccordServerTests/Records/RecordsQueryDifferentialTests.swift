import AccordCRDT
import AccordRecords
import AccordStore
import AccordTesting
import Foundation
import Testing

/// The server's query answers what a client's query answers on the same document:
/// random records written over REST (creates, then patches that unset fields), random
/// filters, sorts and page sizes; the server's pages, followed by their cursors, list
/// the same records in the same order as a client-side ``RecordIndex`` over the stored
/// document, and the counts agree. 100 seeds in `make test`, 500 with `ACCORD_SOAK=1`;
/// `ACCORD_SEED=n` replays one.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct RecordsQueryDifferentialTests {
    static let schema = """
        {"name": "items", "fields": [
          {"name": "n", "type": "number", "indexed": true}, {"name": "s", "type": "string"},
          {"name": "b", "type": "boolean"}, {"name": "d", "type": "date"}, {"name": "t", "type": "stringset"}]}
        """
    static let strings = ["", "a", "ab", "b", "B", "é", "e\u{301}", "Straße", "zz"]
    static let dates = ["2024-01-01T00:00:00.000Z", "2024-06-30T12:00:00.000Z", "2025-01-01T00:00:00.000Z"]
    static let members = ["red", "green", "blue"]

    @Test func serverQueriesAgreeWithClientQueries() async throws {
        let seeds = FuzzSeeds(standard: 100, soak: 500)
        let server = try TestServer()
        let model = try ModelSchema(json: try AnyValue(jsonText: Self.schema))
        for seed in seeds.seeds {
            var random = SplitMix64(seed: seed)
            let document = "diff\(seed)"
            try await server.prepareRecords(document, schema: Self.schema)
            let base = "/v1/documents/\(document)/records/items"
            let count = Int.random(in: 0...25, using: &random)
            var operations = (0..<count).map { index in
                #"{"op":"create","model":"items","id":"r\#(index)","value":\#(Self.randomRecord(&random))}"#
            }
            for index in 0..<count where Int.random(in: 0..<4, using: &random) == 0 {
                let field = ["n", "s", "b", "d", "t"].randomElement(using: &random)!
                operations.append(#"{"op":"patch","model":"items","id":"r\#(index)","value":{"\#(field)":null}}"#)
            }
            if !operations.isEmpty {
                let written = try await server.call(
                    "POST", "/v1/documents/\(document)/records/bulk", user: "olivia",
                    body: #"{"operations":[\#(operations.joined(separator: ","))]}"#)
                try #require(written.status == 200, "seed \(seed): \(written.text)")
            }
            // The client side: the stored document, projected by the records layer.
            let index = try RecordIndex(path: ":memory:")
            try index.register([model])
            let id = try #require(DocumentID(rawValue: document))
            try index.projectAll(id, doc: try server.documents.load(id))

            for _ in 0..<5 {
                let filter = Self.randomFilter(&random, depth: 0)
                let sort = Self.randomSort(&random)
                let limit = Int.random(in: 1...10, using: &random)
                let expected = try index.query(
                    "items", filter: Filter(json: try AnyValue(jsonText: filter)),
                    options: QueryOptions(documents: [id], sortOrder: sort.keys)).map(\.id)
                var seen: [String] = []
                var cursor: String?
                var pages = 0
                repeat {
                    let cursorJSON = cursor.map { #","cursor":"\#($0)""# } ?? ""
                    let page = try await server.call(
                        "POST", "\(base)/query", user: "olivia",
                        body: #"{"filter":\#(filter),"sort":\#(sort.json),"limit":\#(limit)\#(cursorJSON)}"#)
                    try #require(page.status == 200, "seed \(seed) filter \(filter): \(page.text)")
                    seen += ((page.record["data"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
                    cursor = page.record["nextCursor"] as? String
                    pages += 1
                } while cursor != nil && pages <= 30
                #expect(seen == expected, "seed \(seed) filter \(filter) sort \(sort.json) limit \(limit)")
                let counted = try await server.call("POST", "\(base)/count", user: "olivia", body: #"{"filter":\#(filter)}"#)
                #expect(counted.record["count"] as? Int == expected.count, "seed \(seed) count \(filter)")
            }
        }
        try await server.stop()
    }

    // MARK: Generators (JSON text)

    static func randomRecord(_ random: inout SplitMix64) -> String {
        var fields: [String] = []
        if Bool.random(using: &random) { fields.append(#""n":\#(Int.random(in: -3...3, using: &random))"#) }
        if Bool.random(using: &random) { fields.append(#""s":"\#(strings.randomElement(using: &random)!)""#) }
        if Bool.random(using: &random) { fields.append(#""b":\#(Bool.random(using: &random))"#) }
        if Bool.random(using: &random) { fields.append(#""d":"\#(dates.randomElement(using: &random)!)""#) }
        if Bool.random(using: &random) {
            let set = members.filter { _ in Bool.random(using: &random) }.map { "\"\($0)\"" }
            fields.append(#""t":[\#(set.joined(separator: ","))]"#)
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    static func randomValue(_ field: String, _ random: inout SplitMix64) -> String {
        switch field {
        case "n": String(Int.random(in: -3...3, using: &random))
        case "s": "\"\(strings.randomElement(using: &random)!)\""
        case "b": String(Bool.random(using: &random))
        case "d": "\"\(dates.randomElement(using: &random)!)\""
        default: "\"\(members.randomElement(using: &random)!)\""
        }
    }

    static func randomCondition(_ random: inout SplitMix64) -> String {
        let field = ["n", "s", "b", "d", "t"].randomElement(using: &random)!
        if field == "t" {
            return Bool.random(using: &random)
                ? #"{"t":{"$contains":\#(randomValue("t", &random))}}"# : #"{"t":{"$exists":\#(Bool.random(using: &random))}}"#
        }
        // Sometimes a value of another type: never equal, never ordered.
        let valueField = Int.random(in: 0..<6, using: &random) == 0 ? ["n", "s", "b"].randomElement(using: &random)! : field
        let value = randomValue(valueField, &random)
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return #"{"\#(field)":\#(value)}"#
        case 1: return #"{"\#(field)":null}"#
        case 2: return #"{"\#(field)":{"$ne":\#(value)}}"#
        case 3: return #"{"\#(field)":{"$\#(["gt", "gte", "lt", "lte"].randomElement(using: &random)!)":\#(value)}}"#
        case 4, 5:
            let list = (0..<Int.random(in: 0...3, using: &random)).map { _ in randomValue(field, &random) }
            let op = Bool.random(using: &random) ? "$in" : "$nin"
            let withNull = Int.random(in: 0..<4, using: &random) == 0 ? ["null"] : []
            return #"{"\#(field)":{"\#(op)":[\#((list + withNull).joined(separator: ","))]}}"#
        case 6: return #"{"\#(field)":{"$exists":\#(Bool.random(using: &random))}}"#
        default:
            guard field == "s" else { return #"{"\#(field)":\#(value)}"# }
            let op = ["$startsWith", "$endsWith", "$containsText"].randomElement(using: &random)!
            return #"{"s":{"\#(op)":\#(randomValue("s", &random))}}"#
        }
    }

    static func randomFilter(_ random: inout SplitMix64, depth: Int) -> String {
        switch depth < 2 ? Int.random(in: 0..<5, using: &random) : 0 {
        case 0, 1: return randomCondition(&random)
        case 2: return "{}"
        default:
            let op = Bool.random(using: &random) ? "$and" : "$or"
            let branches = (0..<Int.random(in: 1...3, using: &random)).map { _ in randomFilter(&random, depth: depth + 1) }
            return #"{"\#(op)":[\#(branches.joined(separator: ","))]}"#
        }
    }

    static func randomSort(_ random: inout SplitMix64) -> (keys: [SortKey], json: String) {
        var keys: [SortKey] = []
        for field in ["n", "s", "b", "d"].shuffled(using: &random).prefix(Int.random(in: 0...2, using: &random)) {
            keys.append(SortKey(field, Bool.random(using: &random) ? .ascending : .descending))
        }
        let json = keys.map { #"{"field":"\#($0.field)","direction":\#($0.direction.rawValue)}"# }
        return (keys, "[" + json.joined(separator: ",") + "]")
    }
}

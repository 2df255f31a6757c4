import AccordCRDT
import AccordRecords
import Testing

/// The JSON form of aggregations reads to the same options as the Swift form, and a
/// malformed one is `INVALID_QUERY` naming the path.
@Suite struct AggregateOptionsJSONTests {
    @Test func theDocumentedExampleReadsToTheSwiftForm() throws {
        let text = #"""
            {"groupBy": ["category", {"field": "tags", "contains": "urgent"}],
             "operations": [{"type": "count"}, {"type": "sum", "field": "hours"}, {"type": "avg", "field": "hours"},
                            {"type": "min", "field": "due"}, {"type": "max", "field": "due"}],
             "filter": {"done": false}, "sort": {"field": "count", "direction": -1}, "limit": 10, "documents": ["a", "b/c"]}
            """#
        let options = try AggregateOptions(json: AnyValue(jsonText: text))
        #expect(options == AggregateOptions(
            groupBy: [.field("category"), .stringSetMembership(field: "tags", contains: "urgent")],
            operations: [.count, .sum("hours"), .avg("hours"), .min("due"), .max("due")],
            filter: ["done": false], sort: AggregateOptions.Sort("count", .descending), limit: 10, documents: ["a", "b/c"]))
        #expect(try AggregateOptions(json: AnyValue(jsonText: "{}")) == AggregateOptions())
    }

    @Test func aRowPrintsGroupKeysThenResultsInOrder() {
        let options = AggregateOptions(groupBy: [.field("category")], operations: [.count, .sum("hours")])
        let row = AggregateRow(["sum_hours": 2.5, "count": 2, "category": "home"])
        #expect(options.json(row).jsonText == #"{"category":"home","count":2,"sum_hours":2.5}"#)
        let one = AggregateOptions(groupBy: [.stringSetMembership(field: "tags", contains: "x")], operations: [.count])
        #expect(one.json(AggregateRow(["value": 1, "has_tags_x": "true"])).jsonText == #"{"has_tags_x":"true","value":1}"#)
    }

    @Test(arguments: [
        (#"[]"#, "options"),
        (#"{"group":[]}"#, "group"),
        (#"{"groupBy":"category"}"#, "groupBy"),
        (#"{"groupBy":[{"field":"tags"}]}"#, "groupBy[0]"),
        (#"{"operations":[{"type":"count","field":"x"}]}"#, "operations[0]"),
        (#"{"operations":[{"type":"sum"}]}"#, "operations[0]"),
        (#"{"operations":[{"type":"median","field":"x"}]}"#, "operations[0].type"),
        (#"{"filter":[1]}"#, "filter"),
        (#"{"sort":{"field":"count","direction":"down"}}"#, "sort.direction"),
        (#"{"limit":-1}"#, "limit"),
        (#"{"documents":["a//b"]}"#, "documents[0]"),
    ]) func malformedOptionsNameThePath(text: String, path: String) throws {
        let json = try AnyValue(jsonText: text)
        let error = #expect(throws: AccordError.self) { try AggregateOptions(json: json) }
        #expect(error?.code == .invalidQuery)
        #expect(error?.details["path"] == path)
        #expect(error?.message.hasPrefix("\(path): ") == true, "\(error?.message ?? "")")
    }
}

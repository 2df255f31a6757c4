import AccordCRDT
import AccordRecords
import Testing

@Suite struct FilterCompileTests {
    private func failure(_ filter: Filter, model: ModelSchema? = nil) -> AccordError? {
        do {
            _ = try filter.compile(for: model)
            return nil
        } catch {
            return error
        }
    }

    @Test func anUnknownOperatorIsInvalidQueryNamingThePath() {
        let error = failure(["$or": [["n": 1], ["n": ["$regex": "a"]]]])
        #expect(error?.code == .invalidQuery)
        #expect(error?.details["path"] == "filter.$or[1].n.$regex")
        #expect(failure(["$not": ["n": 1]])?.details["path"] == "filter.$not")
    }

    @Test func malformedShapesAreInvalidQuery() {
        let cases: [(Filter, String)] = [
            (Filter(json: .array([])), "filter"),
            (["$or": []], "filter.$or"),
            (["$and": ["n": 1]], "filter.$and"),
            (["n": ["$in": 1]], "filter.n.$in"),
            (["n": ["$in": [["a": 1]]]], "filter.n.$in[0]"),
            (["n": ["$gt": [1]]], "filter.n.$gt"),
            (["n": ["$startsWith": 1]], "filter.n.$startsWith"),
            (["n": ["$exists": "yes"]], "filter.n.$exists"),
            (["n": ["a": 1]], "filter.n"),
            (["n": ["$eq": 1, "a": 1]], "filter.n"),
            (["n": .double(.nan)], "filter.n"),
            (["n": .bytes([1])], "filter.n"),
        ]
        for (filter, path) in cases {
            let error = failure(filter)
            #expect(error?.code == .invalidQuery, "\(filter.json)")
            #expect(error?.details["path"] == path, "\(filter.json)")
        }
    }

    @Test func deepNestingIsRefusedNotRecursedForever() {
        var json: AnyValue = ["n": 1]
        for _ in 0..<10_000 { json = .object(["$and": .array([json])]) }
        #expect(failure(Filter(json: json))?.code == .invalidQuery)
    }

    @Test func fieldsAreCheckedAgainstTheModel() {
        let tasks = ModelSchema("tasks", fields: [FieldSchema("title", .string)])
        #expect(failure(["title": "a", "id": "x"], model: tasks) == nil)
        let error = failure(["$or": [["titel": "a"]]], model: tasks)
        #expect(error?.code == .invalidQuery)
        #expect(error?.details["path"] == "filter.$or[0].titel")
    }
}

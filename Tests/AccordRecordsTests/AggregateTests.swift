import AccordCRDT
import AccordRecords
import AccordStore
import AccordTesting
import Foundation
import Testing

@Suite struct AggregateTests {
    static let tasks = ModelSchema("tasks", fields: [
        FieldSchema("category", .string),
        FieldSchema("hours", .number),
        FieldSchema("done", .boolean),
        FieldSchema("tags", .stringSet),
    ])

    static let records: [RecordData] = [
        RecordData(id: "a", values: ["category": "work", "hours": 2, "tags": .stringSet(["urgent", "q1"])]),
        RecordData(id: "b", values: ["category": "work", "hours": 3, "done": true, "tags": .stringSet(["q1"])]),
        RecordData(id: "c", values: ["category": "home", "hours": 1]),
        RecordData(id: "d", values: ["category": .null, "tags": .stringSet([])]),
        RecordData(id: "e", values: [:]),
    ]

    /// Both paths, which must agree: the index and memory.
    private func aggregate(_ options: AggregateOptions) throws -> [AggregateRow] {
        let index = try RecordIndex(path: ":memory:")
        try index.register([Self.tasks])
        let doc = Doc(clientID: 1)
        for record in Self.records { try RecordLayout.write(record.values, id: record.id, model: Self.tasks, in: doc) }
        try index.projectAll("inbox", doc: doc)
        let sql = try index.aggregate("tasks", options)
        // The memory path takes the records in scope: all, or none for `documents: []`.
        let inScope = options.documents.map { $0.contains("inbox") ? Self.records : [] } ?? Self.records
        let memory = try options.evaluate(inScope, model: Self.tasks)
        #expect(sql == memory, "SQL \(sql) memory \(memory)")
        return sql
    }

    @Test func withoutGroupByThereIsExactlyOneRowEvenOverNoRecords() throws {
        #expect(try aggregate(AggregateOptions()) == [AggregateRow(["value": 5])])
        let none = try aggregate(AggregateOptions(operations: [.count, .sum("hours"), .avg("hours"), .min("hours")], filter: ["hours": 99]))
        #expect(none == [AggregateRow(["count": 0, "sum_hours": 0, "avg_hours": .null, "min_hours": .null])])
        #expect(try aggregate(AggregateOptions(documents: [])) == [AggregateRow(["value": 0])])
    }

    @Test func absentAndNullFormOneGroupWithKeyNull() throws {
        let rows = try aggregate(AggregateOptions(groupBy: [.field("category")]))
        #expect(rows == [
            AggregateRow(["category": .null, "value": 2]),
            AggregateRow(["category": "home", "value": 1]),
            AggregateRow(["category": "work", "value": 2]),
        ])
    }

    @Test func oneOperationGivesTheBareValueAndSeveralGiveNamedKeys() throws {
        let one = try aggregate(AggregateOptions(groupBy: [.field("category")], operations: [.sum("hours")], filter: ["category": "work"]))
        #expect(one == [AggregateRow(["category": "work", "value": 5])])
        let many = try aggregate(AggregateOptions(
            groupBy: [.field("category")], operations: [.count, .sum("hours"), .avg("hours"), .max("hours")],
            filter: ["category": "work"]))
        #expect(many == [AggregateRow(["category": "work", "count": 2, "sum_hours": 5, "avg_hours": 2.5, "max_hours": 3])])
    }

    @Test func aStringSetFacetCountsARecordOncePerMember() throws {
        let rows = try aggregate(AggregateOptions(groupBy: [.field("tags")], operations: [.count, .sum("hours")]))
        #expect(rows == [
            AggregateRow(["tags": .null, "count": 3, "sum_hours": 1]),
            AggregateRow(["tags": "q1", "count": 2, "sum_hours": 5]),
            AggregateRow(["tags": "urgent", "count": 1, "sum_hours": 2]),
        ])
    }

    @Test func membershipGroupsSayTrueOrFalse() throws {
        let rows = try aggregate(AggregateOptions(groupBy: [.stringSetMembership(field: "tags", contains: "urgent")]))
        #expect(rows == [AggregateRow(["has_tags_urgent": "false", "value": 4]), AggregateRow(["has_tags_urgent": "true", "value": 1])])
    }

    @Test func sortByAResultWithLimit() throws {
        let rows = try aggregate(AggregateOptions(
            groupBy: [.field("category")], operations: [.count], sort: .init("value", .descending), limit: 2))
        #expect(rows.map { $0["category"] } == [.null, "work"])  // ties broken by the group key
    }

    @Test func malformedAggregationsAreInvalidQuery() throws {
        let cases: [(AggregateOptions, String)] = [
            (AggregateOptions(groupBy: [.field("nope")]), "groupBy[0]"),
            (AggregateOptions(groupBy: [.field("tags"), .field("tags")]), "groupBy[1]"),
            (AggregateOptions(groupBy: [.stringSetMembership(field: "category", contains: "x")]), "groupBy[0]"),
            (AggregateOptions(operations: []), "operations"),
            (AggregateOptions(operations: [.sum("category")]), "operations[0]"),
            (AggregateOptions(operations: [.min("tags")]), "operations[0]"),
            (AggregateOptions(operations: [.count, .count]), "operations[1]"),
            (AggregateOptions(sort: .init("nope")), "sort"),
            (AggregateOptions(limit: -1), "limit"),
        ]
        let index = try RecordIndex(path: ":memory:")
        try index.register([Self.tasks])
        for (options, path) in cases {
            do {
                _ = try index.aggregate("tasks", options)
                Issue.record("accepted \(options)")
            } catch {
                #expect(error.code == .invalidQuery)
                #expect(error.details["path"] == path)
            }
        }
    }

    /// Random records and aggregations: SQL and memory agree (sums within rounding).
    @Test func sqlAndMemoryAgreeOnRandomAggregations() throws {
        let model = QueryDifferentialTests.model
        let index = try RecordIndex(path: ":memory:")
        try index.register([model])
        let seeds = ProcessInfo.processInfo.environment["ACCORD_SOAK"] == "1" ? 10_000 : 300
        for seed in 0..<UInt64(seeds) {
            var rng = SplitMix64(seed: seed ^ 0xA66)
            let doc = Doc(clientID: 1)
            for position in 0..<(3 + Int(rng.next() % 20)) {
                try RecordLayout.write(QueryDifferentialTests.randomValues(&rng), id: "r\(position % 13)", model: model, in: doc)
            }
            try index.projectAll("d", doc: doc)
            let records = try RecordLayout.records(of: model, in: doc).records
            let options = Self.randomOptions(&rng)
            let sql = try index.aggregate(model.name, options)
            let memory = try options.evaluate(records, model: model)
            #expect(Self.close(sql, memory), "seed \(seed): \(options)\nSQL \(sql)\nmemory \(memory)")
            if !Self.close(sql, memory) { return }
        }
    }

    static func randomOptions(_ rng: inout SplitMix64) -> AggregateOptions {
        func pick<T>(_ pool: [T]) -> T { pool[Int(rng.next() % UInt64(pool.count))] }
        var groupBy: [AggregateOptions.GroupBy] = []
        for candidate in [AggregateOptions.GroupBy.field("s"), .field("b"), .field("tags"), .stringSetMembership(field: "tags", contains: "a")]
        where rng.next() % 3 == 0 {
            groupBy.append(candidate)
        }
        var operations: [AggregateOptions.Operation] = []
        for candidate in [AggregateOptions.Operation.count, .sum("n"), .avg("n"), .min("s"), .max("d"), .min("b")] where rng.next() % 2 == 0 {
            operations.append(candidate)
        }
        if operations.isEmpty { operations = [.count] }
        var options = AggregateOptions(groupBy: groupBy, operations: operations)
        if rng.next() % 2 == 0 { options.filter = Filter(json: QueryDifferentialTests.randomFilter(&rng, depth: 1)) }
        if rng.next() % 2 == 0 {
            let keys = groupBy.map(\.key) + operations.indices.map { operations.count == 1 ? "value" : operations[$0].key }
            options.sort = .init(pick(keys), rng.next() % 2 == 0 ? .ascending : .descending)
        }
        if rng.next() % 3 == 0 { options.limit = Int(rng.next() % 4) }
        return options
    }

    /// Equal rows, numbers within a relative 1e-9 (sums may add in another order).
    static func close(_ a: [AggregateRow], _ b: [AggregateRow]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { x, y in
            x.values.keys.sorted() == y.values.keys.sorted()
                && x.values.allSatisfy { key, value in
                    switch (value, y.values[key]) {
                    case (.number(let p), .number(let q)?): return p == q || abs(p - q) <= 1e-9 * max(abs(p), abs(q))
                    default: return value == y.values[key]
                    }
                }
        }
    }
}

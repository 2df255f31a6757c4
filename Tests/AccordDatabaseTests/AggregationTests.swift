import AccordCRDT
import AccordDatabase
import AccordRecords
import AccordTesting
import Foundation
import Testing

/// `collection.aggregate`: examples of each rule, refusals, and results equal to a
/// brute-force evaluation written from the rules in docs/database.md on random
/// documents (8 collections × 25 aggregations = 200 seeds by default;
/// `ACCORD_DATABASE_AGGREGATE_SEED=<n>` replays one, `ACCORD_DATABASE_AGGREGATE_SEEDS=<n>`
/// runs n per collection).
@Suite struct AggregationTests {
    static let paths = ["a", "b", "tags", "nested.x", "nested.y", "missing"]

    @Test func groupsByNestedKeyPathsWithEveryOperation() throws {
        let fixture = try DatabaseFixture()
        let people = try fixture.database.createCollection(name: "people")
        let rows: [(String, String, Int)] = [("ann", "Paris", 31), ("bob", "Lyon", 40), ("cy", "Paris", 20), ("di", "", 0)]
        for (id, city, age) in rows {
            let document = MutableDocument(id: id).setInt(age, forKey: "age")
            if !city.isEmpty { document.setValue(["city": city], forKey: "address") }
            try people.save(document: document)
        }
        let options = AggregateOptions(
            groupBy: [.field("address.city")],
            operations: [.count, .sum("age"), .avg("age"), .min("age"), .max("_id")])
        let result = try people.aggregate(options)
        #expect(result == [
            AggregateRow(["address.city": .null, "count": 1, "sum_age": 0, "avg_age": 0, "min_age": 0, "max__id": "di"]),
            AggregateRow(["address.city": "Lyon", "count": 1, "sum_age": 40, "avg_age": 40, "min_age": 40, "max__id": "bob"]),
            AggregateRow(["address.city": "Paris", "count": 2, "sum_age": 51, "avg_age": 25.5, "min_age": 20, "max__id": "cy"]),
        ])
        #expect(options.json(result[2]).jsonText
            == #"{"address.city":"Paris","count":2,"sum_age":51,"avg_age":25.5,"min_age":20,"max__id":"cy"}"#)
        // No groups: one row, even when nothing matches.
        #expect(try people.aggregate(AggregateOptions(operations: [.avg("age")], filter: ["age": ["$gt": 99]]))
            == [AggregateRow(["value": .null])])
        // The JSON form, a filter, a sort on a result and a limit.
        let json = try AnyValue(jsonText: #"{"groupBy":["address.city"],"filter":{"age":{"$gte":20}},"sort":{"field":"value","direction":-1},"limit":1}"#)
        #expect(try people.aggregate(AggregateOptions(json: json)) == [AggregateRow(["address.city": "Paris", "value": 2])])
    }

    @Test func arraysAreFacetsOfTheirStringMembers() throws {
        let fixture = try DatabaseFixture()
        let notes = try fixture.database.defaultCollection()
        try notes.save(document: MutableDocument(id: "1", json: #"{"tags":["red","blue","red"],"n":1}"#))
        try notes.save(document: MutableDocument(id: "2", json: #"{"tags":["blue",3,{"x":1}],"n":2}"#))
        try notes.save(document: MutableDocument(id: "3", json: #"{"tags":[1,2],"n":4}"#))
        try notes.save(document: MutableDocument(id: "4", json: #"{"tags":{"red":true},"n":8}"#))
        try notes.save(document: MutableDocument(id: "5", json: #"{"tags":"red","n":16}"#))
        #expect(try notes.aggregate(AggregateOptions(groupBy: [.field("tags")], operations: [.sum("n")])) == [
            AggregateRow(["tags": .null, "value": 12]),  // no string members; an object
            AggregateRow(["tags": "blue", "value": 3]),
            AggregateRow(["tags": "red", "value": 17]),  // once per document, and the scalar "red"
        ])
        #expect(try notes.aggregate(AggregateOptions(groupBy: [.stringSetMembership(field: "tags", contains: "red")])) == [
            AggregateRow(["has_tags_red": "false", "value": 4]),
            AggregateRow(["has_tags_red": "true", "value": 1]),
        ])
    }

    @Test func badOptionsAreRefusedWithCodes() throws {
        let fixture = try DatabaseFixture()
        let collection = try fixture.database.defaultCollection()
        try collection.save(document: MutableDocument(id: "x").setInt(1, forKey: "n"))
        let bad: [(AggregateOptions, String)] = [
            (AggregateOptions(operations: []), "operations"),
            (AggregateOptions(groupBy: [.field("a"), .field("a")]), "groupBy[1]"),
            (AggregateOptions(groupBy: [.field("a..b")]), "groupBy[0]"),
            (AggregateOptions(groupBy: [.field("")]), "groupBy[0]"),
            (AggregateOptions(groupBy: [.stringSetMembership(field: "a\"b", contains: "x")]), "groupBy[0]"),
            (AggregateOptions(operations: [.sum("n"), .sum("n")]), "operations[1]"),
            (AggregateOptions(operations: [.max("")]), "operations[0]"),
            (AggregateOptions(groupBy: [.field("count")], operations: [.count, .sum("n")]), "operations[0]"),
            (AggregateOptions(sort: AggregateOptions.Sort("nope")), "sort"),
            (AggregateOptions(limit: -1), "limit"),
            (AggregateOptions(documents: []), "documents"),
            (AggregateOptions(filter: ["n": ["$gt": ["x": 1]]]), "filter.n.$gt"),
        ]
        for (options, path) in bad {
            let error = try #require(throws: AccordError.self) { try collection.aggregate(options) }
            #expect(error.code == .invalidQuery, "\(path)")
            #expect(error.details["path"] == path, "\(error.message)")
        }
        #expect(throws: AccordError.self) { try AggregateOptions(json: .object(OrderedObject([("operations", .string("x"))]))) }
        #expect(try collection.count(.all) == 1)
        try fixture.database.close()
        let closed = try #require(throws: AccordError.self) { try collection.aggregate(AggregateOptions()) }
        #expect(closed.code == .databaseClosed)
    }

    @Test func aggregationsEqualBruteForce() throws {
        let fixture = try DatabaseFixture()
        let environment = ProcessInfo.processInfo.environment
        let only = environment["ACCORD_DATABASE_AGGREGATE_SEED"].flatMap(UInt64.init)
        let perCollection = environment["ACCORD_DATABASE_AGGREGATE_SEEDS"].flatMap(Int.init) ?? 25
        var nonTrivial = 0
        for group in 0..<8 {
            let collection = try fixture.database.createCollection(name: "g\(group)")
            var rng = SplitMix64(seed: UInt64(group) &* 104_729)
            var documents: [(id: String, object: OrderedObject)] = []
            try fixture.database.inBatch {
                for n in 0..<50 {
                    let object = QueryDifferentialTests.randomDocument(&rng)
                    let id = "d\(n)"
                    try collection.save(document: try MutableDocument(id: id, json: AnyValue.object(object).jsonText))
                    documents.append((id, object))
                }
            }
            for query in 0..<perCollection {
                let seed = UInt64(group * 100_000 + query)
                if let only, only != seed { continue }
                var queryRNG = SplitMix64(seed: seed &+ 7_777_777)
                let options = Self.randomOptions(&queryRNG)
                let expected = Self.bruteForce(options, documents)
                let actual = try collection.aggregate(options)
                if expected.count > 1 { nonTrivial += 1 }
                #expect(actual == expected, "seed \(seed): \(options)")
            }
        }
        if only == nil, perCollection >= 25 { #expect(nonTrivial > 50, "\(nonTrivial) aggregations with several rows") }
    }

    // MARK: Random options

    static func randomOptions(_ rng: inout SplitMix64) -> AggregateOptions {
        var groupBy: [AggregateOptions.GroupBy] = []
        for _ in 0..<Int(rng.next() % 3) {
            let path = paths[Int(rng.next() % UInt64(paths.count))]
            let group: AggregateOptions.GroupBy = rng.next() % 4 == 0
                ? .stringSetMembership(field: path, contains: QueryDifferentialTests.strings[Int(rng.next() % 4)])
                : .field(path)
            if !groupBy.contains(where: { $0.key == group.key }) { groupBy.append(group) }
        }
        var operations: [AggregateOptions.Operation] = []
        for _ in 0..<Int(1 + rng.next() % 3) {
            let path = paths[Int(rng.next() % UInt64(paths.count))]
            let operation: AggregateOptions.Operation = switch rng.next() % 5 {
            case 0: .count
            case 1: .sum(path)
            case 2: .avg(path)
            case 3: .min(path)
            default: .max(path)
            }
            if !operations.contains(where: { $0.key == operation.key }) { operations.append(operation) }
        }
        let filter = rng.next() % 2 == 0 ? Filter.all : Filter(json: QueryDifferentialTests.randomFilter(&rng, depth: 0))
        let keys = groupBy.map(\.key) + (operations.count == 1 ? ["value"] : operations.map(\.key))
        let sort = rng.next() % 2 == 0
            ? AggregateOptions.Sort(keys[Int(rng.next() % UInt64(keys.count))], rng.next() % 2 == 0 ? .ascending : .descending)
            : nil
        let limit = rng.next() % 3 == 0 ? Int(rng.next() % 5) : nil
        return AggregateOptions(groupBy: groupBy, operations: operations, filter: filter, sort: sort, limit: limit)
    }

    // MARK: The brute-force side, from the documented rules

    static func bruteForce(_ options: AggregateOptions, _ documents: [(id: String, object: OrderedObject)]) -> [AggregateRow] {
        let predicate = try! options.filter.compile()
        let matching = documents.filter { predicate.matches(QueryDifferentialTests.recordData($0.id, $0.object)) }
        var groups: [(key: [RecordValue], documents: [(id: String, object: OrderedObject)])] = []
        for document in matching {
            var keys: [[RecordValue]] = [[]]
            for group in options.groupBy {
                var choices: [RecordValue]
                switch group {
                case .field(let path):
                    switch QueryDifferentialTests.lookup(path, document.id, document.object) {
                    case .array(let items)?:
                        choices = []
                        for case .string(let member) in items where !choices.contains(.string(member)) {
                            choices.append(.string(member))
                        }
                        if choices.isEmpty { choices = [.null] }
                    case let value?: choices = [scalar(value) ?? .null]
                    case nil: choices = [.null]
                    }
                case .stringSetMembership(let path, let member):
                    var has = false
                    if case .array(let items)? = QueryDifferentialTests.lookup(path, document.id, document.object) {
                        has = items.contains { $0.stringValue.map { $0.utf8.elementsEqual(member.utf8) } ?? false }
                    }
                    choices = [.string(has ? "true" : "false")]
                }
                keys = keys.flatMap { key in choices.map { key + [$0] } }
            }
            for key in keys {
                if let index = groups.firstIndex(where: { $0.key == key }) {
                    groups[index].documents.append(document)
                } else {
                    groups.append((key, [document]))
                }
            }
        }
        if options.groupBy.isEmpty, groups.isEmpty { groups = [([], [])] }
        var rows = groups.map { group in
            var row: [String: RecordValue] = [:]
            for (index, by) in options.groupBy.enumerated() { row[by.key] = group.key[index] }
            for operation in options.operations {
                let key = options.operations.count == 1 ? "value" : operation.key
                row[key] = compute(operation, group.documents)
            }
            return AggregateRow(row)
        }
        rows.sort { a, b in
            if let sort = options.sort {
                let order = compare(a[sort.key]!, b[sort.key]!)
                if order != 0 { return sort.direction == .ascending ? order < 0 : order > 0 }
            }
            for by in options.groupBy {
                let order = compare(a[by.key]!, b[by.key]!)
                if order != 0 { return order < 0 }
            }
            return false
        }
        if let limit = options.limit { rows = Array(rows.prefix(limit)) }
        return rows
    }

    static func scalar(_ value: AnyValue) -> RecordValue? {
        switch value {
        case .bool(let b): .bool(b)
        case .int(let i): .number(Double(i))
        case .double(let d): .number(d)
        case .string(let s): .string(s)
        default: nil
        }
    }

    static func compute(_ operation: AggregateOptions.Operation, _ documents: [(id: String, object: OrderedObject)]) -> RecordValue {
        let path: String
        switch operation {
        case .count: return .number(Double(documents.count))
        case .sum(let p), .avg(let p), .min(let p), .max(let p): path = p
        }
        let values = documents.compactMap { QueryDifferentialTests.lookup(path, $0.id, $0.object).flatMap(scalar) }
        let numbers = values.compactMap { if case .number(let n) = $0 { n } else { nil } }
        switch operation {
        case .sum: return .number(numbers.reduce(0, +))
        case .avg: return numbers.isEmpty ? .null : .number(numbers.reduce(0, +) / Double(numbers.count))
        case .min: return values.min { compare($0, $1) < 0 } ?? .null
        default: return values.max { compare($0, $1) < 0 } ?? .null
        }
    }

    static func compare(_ a: RecordValue, _ b: RecordValue) -> Int {
        func anyValue(_ value: RecordValue) -> AnyValue? {
            switch value {
            case .bool(let b): .bool(b)
            case .number(let n): .double(n)
            case .string(let s): .string(s)
            default: nil
            }
        }
        return QueryDifferentialTests.compare(anyValue(a), anyValue(b))
    }
}

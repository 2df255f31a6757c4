import AccordCRDT
import AccordDatabase
import AccordRecords
import AccordTesting
import Foundation
import Testing

/// Query results (SQL over the document table) equal a brute-force evaluation: the
/// records engine's in-memory predicate over each document's values at the key paths,
/// sorted by the documented order, and paged with cursors. 10 collections of random documents × 100 random
/// queries = 1,000 seeds (`ACCORD_DATABASE_QUERY_SEED` replays one).
@Suite struct QueryDifferentialTests {
    static let paths = ["a", "b", "tags", "nested.x", "nested.y", "_id", "missing"]
    static let strings = ["", "a", "ab", "B", "é", "e\u{301}", "straße", "STRASSE", "x y", "d3"]

    @Test func queriesEqualBruteForce() throws {
        let fixture = try DatabaseFixture()
        let only = ProcessInfo.processInfo.environment["ACCORD_DATABASE_QUERY_SEED"].flatMap(UInt64.init)
        var (someMatch, noneMatch, allMatch) = (0, 0, 0)
        for group in 0..<10 {
            let collection = try fixture.database.createCollection(name: "g\(group)")
            var rng = SplitMix64(seed: UInt64(group) &* 7919)
            var documents: [(id: String, object: OrderedObject)] = []
            try fixture.database.inBatch {
                for n in 0..<60 {
                    let object = Self.randomDocument(&rng)
                    let id = "d\(n % 7)\(n)"
                    try collection.save(document: try MutableDocument(id: id, json: AnyValue.object(object).jsonText))
                    documents.append((id, object))
                }
            }
            if group.isMultiple(of: 2) { try collection.createIndex(name: "ab", keyPaths: ["a", "nested.x"]) }
            for query in 0..<100 {
                let seed = UInt64(group * 100 + query)
                if let only, only != seed { continue }
                var queryRNG = SplitMix64(seed: seed &+ 1_000_003)
                let filter = Filter(json: Self.randomFilter(&queryRNG, depth: 0))
                let sort = (0..<Int(queryRNG.next() % 3)).map { _ in
                    SortKey(Self.paths[Int(queryRNG.next() % UInt64(Self.paths.count))],
                            queryRNG.next() % 2 == 0 ? .ascending : .descending)
                }
                let predicate = try filter.compile()
                let expected = documents
                    .filter { predicate.matches(Self.recordData($0.id, $0.object)) }
                    .sorted { Self.precedes($0, $1, sort) }
                    .map(\.id)
                let actual = try collection.query(filter, DocumentQueryOptions(sortOrder: sort)).map(\.id)
                switch expected.count {
                case 0: noneMatch += 1
                case documents.count: allMatch += 1
                default: someMatch += 1
                }
                #expect(actual == expected, "seed \(seed): \(filter.json.jsonText) sort \(sort.map { "\($0.field) \($0.direction)" })")
                #expect(try collection.count(filter) == expected.count, "seed \(seed)")
                // Paging with cursors visits the same documents in the same order.
                var paged: [String] = []
                var cursor: String?
                repeat {
                    let page = try collection.queryPaged(filter, DocumentQueryOptions(sortOrder: sort, limit: 7, cursor: cursor))
                    paged += page.results.map(\.id)
                    cursor = page.nextCursor
                } while cursor != nil && paged.count <= documents.count
                #expect(paged == expected, "seed \(seed) paged")
            }
        }
        // The random queries are not vacuous: many select some documents but not all.
        if only == nil { #expect(someMatch > 400, "some \(someMatch), none \(noneMatch), all \(allMatch)") }
    }

    // MARK: Random documents and filters

    static func randomScalar(_ rng: inout SplitMix64) -> AnyValue {
        switch rng.next() % 6 {
        case 0: return .null
        case 1: return .bool(rng.next() % 2 == 0)
        case 2: return .int(Int64(rng.next() % 7) - 3)
        case 3: return .double(Double(Int64(rng.next() % 7) - 3) + 0.5)
        default: return .string(strings[Int(rng.next() % UInt64(strings.count))])
        }
    }

    static func randomValue(_ rng: inout SplitMix64) -> AnyValue? {
        switch rng.next() % 8 {
        case 0: return nil  // absent
        case 1: return .array((0..<Int(rng.next() % 3)).map { _ in randomScalar(&rng) })
        case 2: return .object(OrderedObject([("x", randomScalar(&rng)), ("y", randomScalar(&rng))]))
        default: return randomScalar(&rng)
        }
    }

    static func randomDocument(_ rng: inout SplitMix64) -> OrderedObject {
        var entries: [(String, AnyValue)] = []
        for key in ["a", "b", "tags", "nested"] {
            if let value = randomValue(&rng) { entries.append((key, value)) }
        }
        if rng.next() % 3 == 0 {
            entries.removeAll { $0.0 == "nested" }
            entries.append(("nested", .object(OrderedObject([("x", randomScalar(&rng))]))))
        }
        return OrderedObject(entries)
    }

    static func randomFilter(_ rng: inout SplitMix64, depth: Int) -> AnyValue {
        if depth < 2, rng.next() % 4 == 0 {
            let branches = (0..<Int(1 + rng.next() % 3)).map { _ in randomFilter(&rng, depth: depth + 1) }
            return .object(OrderedObject([(rng.next() % 2 == 0 ? "$and" : "$or", .array(branches))]))
        }
        let path = paths[Int(rng.next() % UInt64(paths.count))]
        let operand = randomScalar(&rng)
        let text = AnyValue.string(strings[Int(rng.next() % UInt64(strings.count))])
        let condition: AnyValue
        switch rng.next() % 13 {
        case 0: condition = operand
        case 1: condition = .object(OrderedObject([("$eq", operand)]))
        case 2: condition = .object(OrderedObject([("$ne", operand)]))
        case 3: condition = .object(OrderedObject([("$gt", operand)]))
        case 4: condition = .object(OrderedObject([("$gte", operand)]))
        case 5: condition = .object(OrderedObject([("$lt", operand), ("$gt", randomScalar(&rng))]))
        case 6: condition = .object(OrderedObject([("$in", .array([operand, randomScalar(&rng), randomScalar(&rng)]))]))
        case 7: condition = .object(OrderedObject([("$nin", .array([operand, randomScalar(&rng)]))]))
        case 8: condition = .object(OrderedObject([("$startsWith", text)]))
        case 9: condition = .object(OrderedObject([("$endsWith", text)]))
        case 10: condition = .object(OrderedObject([("$containsText", text)]))
        case 11: condition = .object(OrderedObject([("$contains", text)]))
        default: condition = .object(OrderedObject([("$exists", .bool(rng.next() % 2 == 0))]))
        }
        return .object(OrderedObject([(path, condition)]))
    }

    // MARK: The brute-force side

    /// A document's values at every key path, as the records engine sees field values:
    /// an array is the set of its strings, an object is present and equal to nothing.
    static func recordData(_ id: String, _ object: OrderedObject) -> RecordData {
        var values: [String: RecordValue] = [:]
        for path in paths {
            guard let value = lookup(path, id, object) else { continue }
            values[path] = recordValue(value)
        }
        return RecordData(id: id, values: values)
    }

    static func lookup(_ path: String, _ id: String, _ object: OrderedObject) -> AnyValue? {
        if path == "_id" { return .string(id) }
        var current = AnyValue.object(object)
        for key in path.split(separator: ".") {
            guard case .object(let nested) = current, let next = nested[String(key)] else { return nil }
            current = next
        }
        return current
    }

    static func recordValue(_ value: AnyValue) -> RecordValue {
        switch value {
        case .bool(let b): return .bool(b)
        case .int(let i): return .number(Double(i))
        case .double(let d): return .number(d)
        case .string(let s): return .string(s)
        case .array(let items): return .stringSet(StringSet(items.compactMap(\.stringValue)))
        case .object: return .stringSet([])
        default: return .null
        }
    }

    /// Type rank, then value within the rank, per key; then id (by UTF-8 bytes).
    static func precedes(
        _ a: (id: String, object: OrderedObject), _ b: (id: String, object: OrderedObject), _ sort: [SortKey]
    ) -> Bool {
        for key in sort {
            let order = compare(lookup(key.field, a.id, a.object), lookup(key.field, b.id, b.object))
            if order != 0 { return key.direction == .ascending ? order < 0 : order > 0 }
        }
        return a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
    }

    static func compare(_ a: AnyValue?, _ b: AnyValue?) -> Int {
        let (ra, rb) = (rank(a), rank(b))
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.bool(let x)?, .bool(let y)?): return x == y ? 0 : (x ? 1 : -1)
        case (.string(let x)?, .string(let y)?):
            return x.utf8.elementsEqual(y.utf8) ? 0 : (x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1)
        default:
            guard let x = a?.doubleValue, let y = b?.doubleValue else { return 0 }
            return x == y ? 0 : (x < y ? -1 : 1)
        }
    }

    static func rank(_ value: AnyValue?) -> Int {
        switch value {
        case nil, .null?, .undefined?: return 0
        case .bool?: return 1
        case .int?, .double?: return 2
        case .string?: return 3
        default: return 4
        }
    }
}

import AccordCRDT
import AccordRecords
import AccordStore
import AccordTesting
import Foundation
import Testing

/// Random records (absent fields, nulls, string sets, non-ASCII and NUL-bearing
/// strings) and random filters and sorts: the SQL path and the in-memory path give the
/// same records in the same order, on every seed.
@Suite struct QueryDifferentialTests {
    static let seeds = ProcessInfo.processInfo.environment["ACCORD_SOAK"] == "1" ? 20_000 : 1_000

    static let model = ModelSchema("items", fields: [
        FieldSchema("s", .string, indexed: true),
        FieldSchema("n", .number),
        FieldSchema("b", .boolean),
        FieldSchema("d", .date),
        FieldSchema("tags", .stringSet),
        FieldSchema("ref", .id),
    ])
    static let strings = ["", "a", "A", "ab", "abc", "ABC", "é", "e\u{301}", "É", "ß", "SS", "straße", "STRASSE", "Σ", "ς", "σ",
                          "x\u{0}y", "zz", "ﬁ", "FI", "日本", "😀"]
    static let numbers: [Double] = [-1, 0, 0.5, 1, 2, 1e300, -2.5]
    static let dates = ["2026-01-01T00:00:00.000Z", "2026-12-01T09:30:00.000Z", "1999-12-31T23:59:59.999Z"]

    @Test func sqlAndMemoryAgreeOnEverySeed() throws {
        let index = try RecordIndex(path: ":memory:")
        try index.register([Self.model])
        for seed in 0..<UInt64(Self.seeds) {
            var rng = SplitMix64(seed: seed)
            let doc = Doc(clientID: 1)
            for position in 0..<(5 + Int(rng.next() % 20)) {
                try RecordLayout.write(Self.randomValues(&rng), id: "r\(position % 17)", model: Self.model, in: doc)
            }
            let document = DocumentID(rawValue: "doc\(seed % 3)")!
            try index.remove(document)
            try index.projectAll(document, doc: doc)
            let memory = try RecordLayout.records(of: Self.model, in: doc).records
                .map { IndexedRecord(document: document, record: $0) }
            for round in 0..<4 {
                let filter = Filter(json: Self.randomFilter(&rng, depth: 0))
                let sort = Self.randomSort(&rng)
                let predicate = try filter.compile(for: Self.model)
                let expected = memory.filter { predicate.matches($0.record) }.sorted(by: RecordOrder(sort).precedes)
                let options = QueryOptions(documents: [document], sortOrder: sort)
                let actual = try index.query(Self.model.name, filter: filter, options: options)
                #expect(actual.map(\.id) == expected.map(\.id), "seed \(seed) round \(round): \(filter.json.jsonText) sort \(sort)")
                #expect(try index.count(Self.model.name, filter: filter, documents: [document]) == expected.count)
                // Paging through visits the same records in the same order.
                var paged: [String] = []
                var pageOptions = options
                pageOptions.limit = 1 + Int(rng.next() % 4)
                for _ in 0...expected.count {
                    let page = try index.queryPaged(Self.model.name, filter: filter, options: pageOptions)
                    paged += page.data.map(\.id)
                    guard let next = page.nextCursor else { break }
                    pageOptions.cursor = next
                }
                #expect(paged == expected.map(\.id), "seed \(seed) round \(round): paging")
                if actual.map(\.id) != expected.map(\.id) { return }
            }
        }
    }

    static func randomValues(_ rng: inout SplitMix64) -> [String: RecordValue] {
        var values: [String: RecordValue] = [:]
        func pick<T>(_ pool: [T]) -> T { pool[Int(rng.next() % UInt64(pool.count))] }
        for field in model.fields where rng.next() % 4 != 0 {
            if rng.next() % 6 == 0 { values[field.name] = .null; continue }
            switch field.type {
            case .string: values[field.name] = .string(pick(strings))
            case .id: values[field.name] = .string(pick(Array(strings.dropFirst())))  // ids are never empty
            case .number: values[field.name] = .number(pick(numbers))
            case .boolean: values[field.name] = .bool(rng.next() % 2 == 0)
            case .date: values[field.name] = .string(pick(dates))
            case .stringSet: values[field.name] = .stringSet(StringSet((0..<Int(rng.next() % 4)).map { _ in pick(strings) }))
            }
        }
        return values
    }

    static func randomOperand(_ rng: inout SplitMix64) -> AnyValue {
        switch rng.next() % 6 {
        case 0: return .null
        case 1: return .bool(rng.next() % 2 == 0)
        case 2: return .double(numbers[Int(rng.next() % UInt64(numbers.count))])
        case 3: return .string(dates[Int(rng.next() % UInt64(dates.count))])
        default: return .string(strings[Int(rng.next() % UInt64(strings.count))])
        }
    }

    static func randomFilter(_ rng: inout SplitMix64, depth: Int) -> AnyValue {
        let fieldNames = ["id"] + model.fields.map(\.name)
        var entries: [(String, AnyValue)] = []
        for _ in 0..<(1 + Int(rng.next() % 2)) {
            if depth < 2, rng.next() % 5 == 0 {
                let branches = (0..<(1 + Int(rng.next() % 3))).map { _ in randomFilter(&rng, depth: depth + 1) }
                entries.append((rng.next() % 2 == 0 ? "$and" : "$or", .array(branches)))
                continue
            }
            let field = fieldNames[Int(rng.next() % UInt64(fieldNames.count))]
            let ops = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$startsWith", "$endsWith", "$containsText",
                       "$contains", "$exists", "implicit"]
            let op = ops[Int(rng.next() % UInt64(ops.count))]
            let condition: AnyValue
            switch op {
            case "implicit": condition = randomOperand(&rng)
            case "$in", "$nin": condition = .object([op: .array((0..<Int(rng.next() % 4)).map { _ in randomOperand(&rng) })])
            case "$startsWith", "$endsWith", "$containsText", "$contains":
                condition = .object([op: .string(strings[Int(rng.next() % UInt64(strings.count))])])
            case "$exists": condition = .object([op: .bool(rng.next() % 2 == 0)])
            default: condition = .object([op: randomOperand(&rng)])
            }
            if !entries.contains(where: { $0.0 == field }) { entries.append((field, condition)) }
        }
        return .object(OrderedObject(entries))
    }

    static func randomSort(_ rng: inout SplitMix64) -> [SortKey] {
        let sortable = ["id", "s", "n", "b", "d", "ref"]
        return (0..<Int(rng.next() % 3)).map { _ in
            SortKey(sortable[Int(rng.next() % UInt64(sortable.count))], rng.next() % 2 == 0 ? .ascending : .descending)
        }
    }
}

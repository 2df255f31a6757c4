import AccordCRDT
import AccordRecords

/// One query of `accord-bench records`, asked two ways: through the records API
/// (`ClientRecords`, what an app calls) and on the hand-written schema. Each side
/// returns a digest of its answer (the ids in order, or the counts), and the benchmark
/// refuses to time two sides that disagree: a ratio between different answers means
/// nothing.
struct RecordsQuery {
    var name: String
    var note: String
    /// The answer through the records API, for probe `n` (queries with a parameter
    /// cycle through a few values, so one cached answer cannot flatter them).
    var accord: (ClientRecords, Int) throws -> [String]
    var handWritten: (HandWrittenTasks, Int) throws -> [String]

    /// The queries on `fixture`, on the tasks model.
    static func all(_ fixture: TaskFixture) -> [RecordsQuery] {
        // Titles that exist, spread over the fixture.
        let titles = (0..<16).map { fixture.task($0 * 7_919 % max(1, fixture.count)).title }
        let model = TaskFixture.model.name
        return [
            RecordsQuery(
                name: "query_indexed_eq",
                note: "title == t (indexed), limit 20, every field returned; 16 titles in turn, ~20 records each",
                accord: { records, n in
                    let title = titles[n % titles.count]
                    return try records.query(model, filter: ["title": .string(title)], options: QueryOptions(limit: 20)).map(\.id)
                },
                handWritten: { tasks, n in try tasks.titleEquals(titles[n % titles.count]).map(\.id) }),
            RecordsQuery(
                name: "query_range_sort_limit20",
                note: "priority >= 3 (indexed, ~40% of records), sorted by due (not indexed), limit 20",
                accord: { records, _ in
                    try records.query(
                        model, filter: ["priority": ["$gte": 3]],
                        options: QueryOptions(sortOrder: [SortKey("due")], limit: 20)
                    ).map(\.id)
                },
                handWritten: { tasks, _ in try tasks.priorityAtLeastByDue(3).map(\.id) }),
            RecordsQuery(
                name: "query_containsText",
                note: "title $containsText \"FIX MILK 2\" (case-folded substring, a full scan; ~0.1% match, no limit); "
                    + "hand-written: LIKE '%FIX MILK 2%'",
                accord: { records, _ in
                    try records.query(model, filter: ["title": ["$containsText": "FIX MILK 2"]]).map(\.id)
                },
                handWritten: { tasks, _ in try tasks.titleContains("FIX MILK 2").map(\.id) }),
            RecordsQuery(
                name: "query_has_tag_limit20",
                note: "tags $contains \"urgent\" (members table, ~20% of records), limit 20",
                accord: { records, _ in
                    try records.query(model, filter: ["tags": ["$contains": "urgent"]], options: QueryOptions(limit: 20))
                        .map(\.id)
                },
                handWritten: { tasks, _ in try tasks.tagged("urgent").map(\.id) }),
            RecordsQuery(
                name: "count_filtered",
                note: "count of done == false and priority >= 3",
                accord: { records, _ in [String(try records.count(model, filter: ["done": false, "priority": ["$gte": 3]]))] },
                handWritten: { tasks, _ in [String(try tasks.countOpen(priorityAtLeast: 3))] }),
            RecordsQuery(
                name: "aggregate_groupby",
                note: "group by category (8 groups): count and sum of hours",
                accord: { records, _ in
                    let options = AggregateOptions(groupBy: [.field("category")], operations: [.count, .sum("hours")])
                    return try records.aggregate(model, options)
                        .map { row in "\(Self.text(row["category"])):\(Self.text(row["count"])):\(Self.text(row["sum_hours"]))" }
                },
                handWritten: { tasks, _ in
                    try tasks.hoursByCategory().map { group in
                        "\(group.category):\(Self.text(.number(Double(group.count)))):\(Self.text(.number(group.hours)))"
                    }
                }),
            RecordsQuery(
                name: "aggregate_facet",
                note: "group by tags, each member its own group and records without tags one null group (11 groups): count",
                accord: { records, _ in
                    let options = AggregateOptions(groupBy: [.field("tags")], operations: [.count])
                    return try records.aggregate(model, options).map { row in "\(Self.text(row["tags"])):\(Self.text(row["value"]))" }
                },
                handWritten: { tasks, _ in
                    try tasks.countByTag().map { group in "\(Self.text(group.tag.map { .string($0) })):\(Self.text(.number(Double(group.count))))" }
                }),
        ]
    }

    static func text(_ value: RecordValue?) -> String {
        switch value {
        case .string(let text)?: text
        case .number(let number)?: String(number)
        case .bool(let flag)?: String(flag)
        default: "null"
        }
    }
}

import AccordCRDT
import AccordRecords
import AccordStore
import Testing

@Suite struct QueryPagingTests {
    static let tasks = ModelSchema("tasks", fields: [FieldSchema("priority", .number, indexed: true)])

    private func index(with priorities: [(String, RecordValue)]) throws -> (RecordIndex, Doc) {
        let index = try RecordIndex(path: ":memory:")
        try index.register([Self.tasks])
        let doc = Doc(clientID: 1)
        for (id, priority) in priorities {
            try RecordLayout.write(["priority": priority], id: id, model: Self.tasks, in: doc)
        }
        try index.projectAll("inbox", doc: doc)
        return (index, doc)
    }

    @Test(arguments: [SortKey.Direction.ascending, .descending])
    func pagingVisitsEveryRecordOnceWhileRecordsAreInsertedBetweenPages(direction: SortKey.Direction) throws {
        let initial = (0..<20).map { ("t\($0)", RecordValue.number(Double($0 % 5))) } + [("n1", .null), ("n2", .null)]
        let (index, doc) = try index(with: initial)
        var options = QueryOptions(sortOrder: [SortKey("priority", direction)], limit: 3)
        var seen: [String] = []
        var inserted = 0
        while true {
            let page = try index.queryPaged("tasks", options: options)
            #expect(page.data.count <= 3)
            seen += page.data.map(\.id)
            guard let cursor = page.nextCursor else { break }
            #expect(page.hasMore)
            // New records on both sides of the cursor.
            try RecordLayout.write(["priority": .number(Double(inserted % 5))], id: "new\(inserted)", model: Self.tasks, in: doc)
            inserted += 1
            try index.projectAll("inbox", doc: doc)
            options.cursor = cursor
        }
        #expect(Set(seen).count == seen.count, "no record twice")
        #expect(Set(initial.map(\.0)).isSubset(of: Set(seen)), "every record present from the start")
        let all = try index.query("tasks", options: QueryOptions(sortOrder: [SortKey("priority", direction)]))
        let order = all.map(\.id)
        #expect(seen == order.filter { seen.contains($0) }, "pages follow the query's order")
    }

    @Test func aLastPageHasNoCursorAndAGarbageCursorIsInvalidQuery() throws {
        let (index, _) = try index(with: [("a", 1), ("b", 2)])
        let page = try index.queryPaged("tasks", options: QueryOptions(limit: 2))
        #expect(page.data.count == 2)
        #expect(page.nextCursor == nil && !page.hasMore)
        for cursor in ["not base64!", "W10=", "WzEsMiwzLDQsNV0="] {
            #expect(throws: AccordError.self) { try index.query("tasks", options: QueryOptions(cursor: cursor)) }
        }
    }

    /// Every page of a query, each record as `id@document`.
    private func pages(of index: RecordIndex, _ first: QueryOptions) throws -> [String] {
        var options = first
        var paged: [String] = []
        while true {
            let page = try index.queryPaged("tasks", options: options)
            paged += page.data.map { "\($0.id)@\($0.document.rawValue)" }
            guard let cursor = page.nextCursor else { return paged }
            options.cursor = cursor
        }
    }

    /// Rows hold a document's integer key, given in the order documents first reach the
    /// index; ties of id are still broken by the document id's text (code points), in
    /// one query and across pages, and a scope names documents by their text.
    @Test func sameIdsInSeveralDocumentsOrderByTheDocumentsText() throws {
        let index = try RecordIndex(path: ":memory:")
        try index.register([Self.tasks])
        // Keys are made in this order: not the text's order.
        let documents: [DocumentID] = ["zeta", "alpha", "mid", "Zeta"]
        for document in documents {
            let doc = Doc(clientID: 1)
            for id in ["b", "a"] { try RecordLayout.write(["priority": 1], id: id, model: Self.tasks, in: doc) }
            try index.projectAll(document, doc: doc)
        }
        let expected = ["a", "b"].flatMap { id in ["Zeta", "alpha", "mid", "zeta"].map { "\(id)@\($0)" } }
        for direction in [SortKey.Direction.ascending, .descending] {
            let all = try index.query("tasks", options: QueryOptions(sortOrder: [SortKey("priority", direction)]))
            #expect(all.map { "\($0.id)@\($0.document.rawValue)" } == expected)
            let paged = try pages(of: index, QueryOptions(sortOrder: [SortKey("priority", direction)], limit: 3))
            #expect(paged == expected)
        }
        let scoped = try index.query("tasks", options: QueryOptions(documents: ["mid", "zeta", "nowhere"]))
        #expect(scoped.map { "\($0.id)@\($0.document.rawValue)" } == ["a@mid", "a@zeta", "b@mid", "b@zeta"])
        // Scoped to one document (no join: the scope's text is bound), in both directions.
        for direction in [SortKey.Direction.ascending, .descending] {
            let paged = try pages(of: index, QueryOptions(documents: ["Zeta"], sortOrder: [SortKey("priority", direction)], limit: 1))
            #expect(paged == ["a@Zeta", "b@Zeta"])
        }
        #expect(try index.count("tasks", documents: ["alpha"]) == 2)
        #expect(try index.count("tasks", documents: ["nowhere"]) == 0)
        // A removed document's rows go; the others keep theirs.
        try index.remove("alpha")
        #expect(try index.count("tasks") == 6)
        #expect(try index.query("tasks", options: QueryOptions(documents: ["alpha"])).isEmpty)
    }
}

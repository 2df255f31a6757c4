import AccordCRDT
import AccordRecords
import AccordStore
import AccordTesting
import Testing

@Suite struct RecordIndexTests {
    static let tasks = ModelSchema("tasks", fields: [
        FieldSchema("title", .string, indexed: true),
        FieldSchema("priority", .number, indexed: true),
        FieldSchema("done", .boolean),
        FieldSchema("tags", .stringSet),
    ])

    private func fixture() throws -> (RecordIndex, Doc, RecordChangeTracker) {
        let index = try RecordIndex(path: ":memory:")
        try index.register([Self.tasks])
        let doc = Doc(clientID: 1)
        return (index, doc, try RecordChangeTracker(doc: doc, models: [Self.tasks]))
    }

    @Test func changesAreProjectedRecordByRecord() throws {
        let (index, doc, tracker) = try fixture()
        try RecordLayout.write(["title": "a", "priority": 1], id: "t1", model: Self.tasks, in: doc)
        try RecordLayout.write(["title": "b", "priority": 2, "tags": .stringSet(["x"])], id: "t2", model: Self.tasks, in: doc)
        try index.project("inbox", doc: doc, changes: tracker.take())
        #expect(index.counters.projectedRecords == 2)
        #expect(try index.query("tasks").map(\.id) == ["t1", "t2"])

        // One field of one record: one record projected.
        try RecordLayout.write(["priority": 5], id: "t1", model: Self.tasks, in: doc)
        try index.project("inbox", doc: doc, changes: tracker.take())
        #expect(index.counters.projectedRecords == 3)
        #expect(try index.query("tasks", filter: ["priority": 5]).map(\.id) == ["t1"])

        // A member added to a set, then a delete.
        try RecordLayout.write(["tags": .stringSet(["x", "y"])], id: "t2", model: Self.tasks, in: doc)
        try RecordLayout.delete("t1", model: Self.tasks, in: doc)
        try index.project("inbox", doc: doc, changes: tracker.take())
        #expect(index.counters.projectedRecords == 5)
        let rows = try index.query("tasks")
        #expect(rows.map(\.id) == ["t2"])
        #expect(rows.first?["tags"] == .stringSet(["x", "y"]))
        #expect(try index.count("tasks", filter: ["tags": ["$contains": "y"]]) == 1)
    }

    @Test func remoteUpdatesAreTrackedLikeLocalOnes() throws {
        let (index, doc, tracker) = try fixture()
        let peer = Doc(clientID: 2)
        try RecordLayout.write(["title": "remote", "done": true], id: "r1", model: Self.tasks, in: peer)
        try doc.applyUpdate(peer.encodeStateAsUpdate())
        try index.project("inbox", doc: doc, changes: tracker.take())
        #expect(try index.query("tasks", filter: ["done": true]).map(\.id) == ["r1"])
    }

    @Test func documentsScopeQueriesAndEmptyScopeMatchesNothing() throws {
        let (index, doc, _) = try fixture()
        let other = Doc(clientID: 2)
        try RecordLayout.write(["title": "a"], id: "t1", model: Self.tasks, in: doc)
        try RecordLayout.write(["title": "b"], id: "t1", model: Self.tasks, in: other)
        try index.projectAll("one", doc: doc)
        try index.projectAll("two", doc: other)
        #expect(try index.query("tasks").map(\.document) == ["one", "two"])
        #expect(try index.query("tasks", options: QueryOptions(documents: ["two"])).map { $0["title"] } == ["b"])
        #expect(try index.query("tasks", options: QueryOptions(documents: [])).isEmpty)
        #expect(try index.count("tasks", documents: []) == 0)
        try index.remove("one")
        #expect(try index.query("tasks").map(\.document) == ["two"])
    }

    @Test func malformedRecordsAreSkippedAndCounted() throws {
        let (index, doc, tracker) = try fixture()
        try RecordLayout.write(["title": "fine"], id: "ok", model: Self.tasks, in: doc)
        let root = try doc.getMap("tasks")
        try doc.transact {
            let bad = try root.setMap("bad")
            try bad.setMap("title")  // a map where a string belongs
        }
        try index.project("inbox", doc: doc, changes: tracker.take())
        #expect(try index.query("tasks").map(\.id) == ["ok"])
        #expect(index.counters.malformedRecords == 1)
        #expect(try index.count("tasks", filter: ["title": ["$exists": false]]) == 0)
    }

    @Test func theStoredStateVectorSaysWhetherADocumentNeedsProjecting() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/index.sqlite"
        let doc = Doc(clientID: 1)
        try RecordLayout.write(["title": "a"], id: "t1", model: Self.tasks, in: doc)
        do {
            let index = try RecordIndex(path: path)
            try index.register([Self.tasks])
            #expect(try index.needsProjection("inbox", stateVector: doc.encodeStateVector(), sequence: 0))
            try index.projectAll("inbox", doc: doc)
        }
        let reopened = try RecordIndex(path: path)
        #expect(try reopened.register([Self.tasks]).isEmpty)  // same schema: nothing rebuilt
        #expect(try !reopened.needsProjection("inbox", stateVector: doc.encodeStateVector(), sequence: 0))
        #expect(reopened.counters.projectedRecords == 0)
        #expect(try reopened.query("tasks").map(\.id) == ["t1"])

        // A changed schema rebuilds the model's tables and asks for projection again.
        var changed = Self.tasks
        changed.fields.append(FieldSchema("notes", .string))
        #expect(try reopened.register([changed]).map(\.name) == ["tasks"])
        #expect(try reopened.needsProjection("inbox", stateVector: doc.encodeStateVector(), sequence: 0))
        #expect(try reopened.query("tasks").isEmpty)
    }

    @Test func aFailedRegistrationWritesNothing() throws {
        let index = try RecordIndex(path: ":memory:")
        let broken = ModelSchema("notes", fields: [FieldSchema("type", .string)])
        #expect(throws: AccordError.self) { try index.register([Self.tasks, broken]) }
        #expect(index.models.isEmpty)
        #expect(throws: AccordError.self) { try index.query("tasks") }
        try index.register([Self.tasks])
        #expect(index.models.keys.sorted() == ["tasks"])
    }

    @Test func sortingPutsNullFirstAscendingAndLastDescendingAndBreaksTiesById() throws {
        let (index, doc, _) = try fixture()
        try RecordLayout.write(["priority": 2], id: "b", model: Self.tasks, in: doc)
        try RecordLayout.write(["priority": 2], id: "a", model: Self.tasks, in: doc)
        try RecordLayout.write(["priority": 1], id: "c", model: Self.tasks, in: doc)
        try RecordLayout.write(["title": "no priority"], id: "d", model: Self.tasks, in: doc)
        try RecordLayout.write(["priority": nil], id: "e", model: Self.tasks, in: doc)
        try index.projectAll("inbox", doc: doc)
        let ascending = try index.query("tasks", options: QueryOptions(sortOrder: [SortKey("priority")]))
        #expect(ascending.map(\.id) == ["d", "e", "c", "a", "b"])
        let descending = try index.query("tasks", options: QueryOptions(sortOrder: [SortKey("priority", .descending)], limit: 4))
        #expect(descending.map(\.id) == ["a", "b", "c", "d"])
        #expect(throws: AccordError.self) {
            try index.query("tasks", options: QueryOptions(sortOrder: [SortKey("tags")]))
        }
    }
}

/// String-set members live twice: as a JSON list in the record's row and one row each
/// in a members table keyed by member. A member must leave that table with its record
/// (or `$contains` would still find it), whatever its characters.
@Suite struct StringSetMemberTests {
    static let awkward = ["x\u{0}y", "say \"hi\"", "back\\slash", "é", "e\u{301}", "tab\there", ""]

    @Test func membersOfAnyTextGoWithTheirRecordOnUpdateDeleteAndRemoval() throws {
        let tasks = RecordIndexTests.tasks
        let index = try RecordIndex(path: ":memory:")
        try index.register([tasks])
        let doc = Doc(clientID: 1)
        let tracker = try RecordChangeTracker(doc: doc, models: [tasks])
        try RecordLayout.write(["title": "a", "tags": .stringSet(StringSet(Self.awkward))], id: "t1", model: tasks, in: doc)
        try RecordLayout.write(["title": "b", "tags": .stringSet(["keep"])], id: "t2", model: tasks, in: doc)
        try index.project("inbox", doc: doc, changes: tracker.take())
        #expect(try index.query("tasks").first { $0.id == "t1" }?["tags"] == .stringSet(StringSet(Self.awkward)))
        for member in Self.awkward {
            #expect(try index.count("tasks", filter: ["tags": ["$contains": .string(member)]]) == 1, "\(member.debugDescription)")
        }
        let facets = try index.aggregate("tasks", AggregateOptions(groupBy: [.field("tags")], operations: [.count]))
        #expect(facets.count == Self.awkward.count + 1)
        #expect(facets.contains { $0.values["tags"] == .string("x\u{0}y") })

        // Every member but one removed: only that one still matches.
        try RecordLayout.write(["tags": .stringSet(["é"])], id: "t1", model: tasks, in: doc)
        try index.project("inbox", doc: doc, changes: tracker.take())
        for member in Self.awkward {
            #expect(try index.count("tasks", filter: ["tags": ["$contains": .string(member)]]) == (member.utf8.elementsEqual("é".utf8) ? 1 : 0))
        }
        // The record deleted: its last member goes too.
        try RecordLayout.delete("t1", model: tasks, in: doc)
        try index.project("inbox", doc: doc, changes: tracker.take())
        #expect(try index.count("tasks", filter: ["tags": ["$contains": "é"]]) == 0)
        // The document removed: every member of its records goes.
        try index.remove("inbox")
        #expect(try index.count("tasks", filter: ["tags": ["$contains": "keep"]]) == 0)
        #expect(try index.aggregate("tasks", AggregateOptions(groupBy: [.field("tags")], operations: [.count])).allSatisfy {
            $0.values["count"] == .number(0)
        })
    }

    @Test func anIndexOfAnEarlierLayoutIsRebuiltFromItsDocuments() throws {
        let tasks = RecordIndexTests.tasks
        let directory = try TemporaryDirectory()
        let path = directory.path + "/index.sqlite"
        do {
            // What layout 1 left: its tables, its version.
            let old = try SQLiteConnection(path: path)
            try old.execute("""
                CREATE TABLE accord_index_documents (document TEXT PRIMARY KEY, state_vector BLOB NOT NULL, sequence INTEGER NOT NULL) WITHOUT ROWID;
                INSERT INTO accord_index_documents VALUES ('inbox', x'00', 1);
                CREATE TABLE "m_tasks_tags" (document TEXT NOT NULL, id TEXT NOT NULL, member TEXT NOT NULL, PRIMARY KEY (document, id, member)) WITHOUT ROWID;
                PRAGMA user_version = 1;
                """)
        }
        let index = try RecordIndex(path: path)
        try index.register([tasks])
        let doc = Doc(clientID: 1)
        try RecordLayout.write(["title": "a", "tags": .stringSet(["x"])], id: "t1", model: tasks, in: doc)
        // The old position is gone with the old tables: the document is projected whole.
        #expect(try index.needsProjection("inbox", stateVector: doc.encodeStateVector(), sequence: 1))
        try index.projectAll("inbox", doc: doc, sequence: 1)
        #expect(try index.query("tasks", filter: ["tags": ["$contains": "x"]]).map(\.id) == ["t1"])
    }
}

@Suite struct RecordIndexReopenTests {
    @Test func aDocumentChangedWhileTheIndexWasNotWatchingWritesOnlyWhatChanged() throws {
        let tasks = RecordIndexTests.tasks
        let directory = try TemporaryDirectory()
        let path = directory.path + "/index.sqlite"
        let doc = Doc(clientID: 1)
        for number in 0..<50 {
            try RecordLayout.write(
                ["title": .string("task \(number)"), "priority": .number(Double(number)), "tags": .stringSet(["a", "b"])],
                id: "t\(number)", model: tasks, in: doc)
        }
        do {
            let index = try RecordIndex(path: path)
            try index.register([tasks])
            try index.projectAll("inbox", doc: doc, sequence: 1)
            #expect(index.counters.projectedRecords == 50)
        }
        // Three records changed, one deleted, one added, while no index was open.
        try RecordLayout.write(["priority": 100], id: "t1", model: tasks, in: doc)
        try RecordLayout.write(["tags": .stringSet(["a"])], id: "t2", model: tasks, in: doc)
        try RecordLayout.write(["priority": nil], id: "t3", model: tasks, in: doc)
        try RecordLayout.delete("t4", model: tasks, in: doc)
        try RecordLayout.write(["title": "new"], id: "t50", model: tasks, in: doc)
        let reopened = try RecordIndex(path: path)
        try reopened.register([tasks])
        #expect(try reopened.needsProjection("inbox", stateVector: doc.encodeStateVector(), sequence: 6))
        try reopened.projectAll("inbox", doc: doc, sequence: 6)
        #expect(reopened.counters.projectedRecords == 5)
        #expect(try reopened.count("tasks") == 50)
        #expect(try reopened.query("tasks", filter: ["priority": 100]).map(\.id) == ["t1"])
        #expect(try reopened.query("tasks", filter: ["tags": ["$contains": "b"]]).count == 48)
        #expect(try reopened.query("tasks", filter: ["priority": nil]).map(\.id) == ["t3", "t50"])
        // Nothing changed since: nothing written.
        try reopened.projectAll("inbox", doc: doc, sequence: 6)
        #expect(reopened.counters.projectedRecords == 5)
    }
}

/// Projections queued by a document's owner are written off its path, by a background
/// thread or by the next use of the index: a read never misses a queued change.
@Suite struct QueuedProjectionTests {
    static let notes = ModelSchema("notes", fields: [FieldSchema("text", .string, indexed: true)])

    @Test func aReadRightAfterEnqueueSeesTheChangeFromAnyThread() async throws {
        let index = try RecordIndex(path: ":memory:")
        try index.register([Self.notes])
        let doc = Doc(clientID: 3)
        let tracker = try RecordChangeTracker(doc: doc, models: [Self.notes])
        for round in 1...200 {
            try RecordLayout.write(["text": .string("n\(round)")], id: "n\(round)", model: Self.notes, in: doc)
            index.enqueue("inbox", doc: doc, changes: tracker.take(), models: ["notes": Self.notes], sequence: UInt64(round))
            // Every other round the read comes from another thread.
            let count = round.isMultiple(of: 2)
                ? try await Task.detached { try index.count("notes", documents: ["inbox"]) }.value
                : try index.count("notes", documents: ["inbox"])
            #expect(count == round)
        }
        // The stored position is the last queued one.
        #expect(try !index.needsProjection("inbox", stateVector: doc.encodeStateVector(), sequence: 200))
    }

    /// Queued rows go in many per statement (rows and string-set members chunked): what
    /// they leave must be exactly what projecting the document record by record leaves.
    @Test func manyRowsPerStatementLeaveExactlyTheRowsOfTheDocument() throws {
        let tagged = ModelSchema("tagged", fields: [
            FieldSchema("title", .string, indexed: true), FieldSchema("tags", .stringSet), FieldSchema("labels", .stringSet),
        ])
        let index = try RecordIndex(path: ":memory:")
        try index.register([tagged])
        let doc = Doc(clientID: 5)
        let tracker = try RecordChangeTracker(doc: doc, models: [tagged])
        // 100 records (three statements of 32 and a remainder), 0 to 7 members each, so
        // member chunks fill and flush at every offset; then a second pass changing some.
        for pass in 0..<2 {
            try doc.transact {
                for n in stride(from: pass, to: 100, by: pass + 1) {
                    let members = (0..<((n + pass) % 8)).map { "m\($0)" }
                    try RecordLayout.write(
                        ["title": .string("r\(n)-\(pass)"), "tags": .stringSet(StringSet(members)),
                         "labels": .stringSet(StringSet(members.prefix(2)))],
                        id: "r\(n)", model: tagged, in: doc)
                }
            }
            index.enqueue("inbox", doc: doc, changes: tracker.take(), models: ["tagged": tagged], sequence: UInt64(pass + 1))
        }
        #expect(try index.count("tagged", documents: ["inbox"]) == 100)
        let written = index.counters.projectedRecords
        // Reconciling compares every record with its rows and writes only those that differ: none.
        try index.projectAll("inbox", doc: doc, sequence: 2)
        #expect(index.counters.projectedRecords == written)
        let holdingM5 = try RecordLayout.records(of: tagged, in: doc).records.filter { record in
            if case .stringSet(let set)? = record.values["tags"] { return set.contains("m5") }
            return false
        }
        #expect(!holdingM5.isEmpty)
        #expect(try index.count("tagged", filter: ["tags": ["$contains": "m5"]], documents: ["inbox"]) == holdingM5.count)
    }

    static let tagged = ModelSchema("tagged", fields: [FieldSchema("title", .string), FieldSchema("tags", .stringSet)])

    private static func tags(_ record: IndexedRecord?) -> [String] {
        guard case .stringSet(let set)? = record?.record.values["tags"] else { return [] }
        return set.sorted()
    }

    @Test func theTrackerNamesTheRecordsATransactionCreated() throws {
        let doc = Doc(clientID: 7)
        let tracker = try RecordChangeTracker(doc: doc, models: [Self.tagged])
        try doc.transact {
            try RecordLayout.write(["title": "one"], id: "a", model: Self.tagged, in: doc)
            try RecordLayout.write(["title": "two"], id: "b", model: Self.tagged, in: doc)
        }
        var taken = tracker.takeChanges()
        #expect(taken.changed == ["tagged": ["a", "b"]])
        #expect(taken.created == ["tagged": ["a", "b"]])
        // A field of an existing record, a new one beside it: only the new one is created.
        try doc.transact {
            try RecordLayout.write(["title": "one again"], id: "a", model: Self.tagged, in: doc)
            try RecordLayout.write(["title": "three"], id: "c", model: Self.tagged, in: doc)
        }
        taken = tracker.takeChanges()
        #expect(taken.changed == ["tagged": ["a", "c"]])
        #expect(taken.created == ["tagged": ["c"]])
        try RecordLayout.delete("b", model: Self.tagged, in: doc)
        taken = tracker.takeChanges()
        #expect(taken.changed == ["tagged": ["b"]])
        #expect(taken.created.isEmpty)
    }

    /// Records their transaction created skip the clearing of string-set members: what
    /// they leave must still be exactly the document's records, members included.
    @Test func createdRecordsLeaveExactlyTheRowsOfTheDocument() throws {
        let index = try RecordIndex(path: ":memory:")
        try index.register([Self.tagged])
        let doc = Doc(clientID: 5)
        let tracker = try RecordChangeTracker(doc: doc, models: [Self.tagged])
        // 100 new records (chunks of 32 and a remainder), 0 to 7 members each; then 50
        // of them changed and 50 more created in one transaction (both kinds in one projection).
        for pass in 0..<2 {
            try doc.transact {
                for n in stride(from: pass * 50, to: 100 + pass * 50, by: 1) where pass == 0 || n % 2 == 0 || n >= 100 {
                    let members = (0..<((n + pass) % 8)).map { "m\($0)" }
                    try RecordLayout.write(
                        ["title": .string("r\(n)-\(pass)"), "tags": .stringSet(StringSet(members))],
                        id: "r\(n)", model: Self.tagged, in: doc)
                }
            }
            let (changes, created) = tracker.takeChanges()
            #expect(created["tagged"]?.count == (pass == 0 ? 100 : 50))
            index.enqueue(
                "inbox", doc: doc, changes: changes, created: created, models: ["tagged": Self.tagged],
                sequence: UInt64(pass + 1))
        }
        #expect(try index.count("tagged", documents: ["inbox"]) == 150)
        let written = index.counters.projectedRecords
        // Reconciling compares every record with its rows (members included): none differs.
        try index.projectAll("inbox", doc: doc, sequence: 2)
        #expect(index.counters.projectedRecords == written)
        #expect(Self.tags(try index.query("tagged", filter: ["id": "r52"]).first) == ["m0", "m1", "m2", "m3", "m4"])
        #expect(Self.tags(try index.query("tagged", filter: ["id": "r120"]).first) == ["m0"])
    }

    /// `created` is a hint: a record named created that the index still holds (deleted
    /// and created again between two projections, say) is written over its old row,
    /// and its old members are gone.
    @Test func aCreatedHintForARowTheIndexHoldsStillReplacesItsMembers() throws {
        let index = try RecordIndex(path: ":memory:")
        try index.register([Self.tagged])
        let doc = Doc(clientID: 9)
        let tracker = try RecordChangeTracker(doc: doc, models: [Self.tagged])
        try RecordLayout.write(["title": "old", "tags": .stringSet(["a", "b"])], id: "x", model: Self.tagged, in: doc)
        try RecordLayout.write(["title": "other", "tags": .stringSet(["a"])], id: "y", model: Self.tagged, in: doc)
        index.enqueue("inbox", doc: doc, changes: tracker.take(), models: ["tagged": Self.tagged], sequence: 2)
        #expect(try index.count("tagged", filter: ["tags": ["$contains": "b"]]) == 1)

        try RecordLayout.delete("x", model: Self.tagged, in: doc)
        try RecordLayout.write(["title": "new", "tags": .stringSet(["c"])], id: "x", model: Self.tagged, in: doc)
        try RecordLayout.write(["title": "fresh", "tags": .stringSet(["a"])], id: "z", model: Self.tagged, in: doc)
        // Both transactions taken together; the record is named created though the index holds it.
        let (changes, created) = tracker.takeChanges()
        #expect(created["tagged"] == ["x", "z"])
        index.enqueue(
            "inbox", doc: doc, changes: changes, created: created, models: ["tagged": Self.tagged], sequence: 5)
        #expect(try index.count("tagged", filter: ["tags": ["$contains": "b"]]) == 0)
        #expect(try index.count("tagged", filter: ["tags": ["$contains": "a"]]) == 2)
        #expect(try index.query("tagged", filter: ["id": "x"]).first?.record.values["title"] == .string("new"))
        #expect(Self.tags(try index.query("tagged", filter: ["id": "x"]).first) == ["c"])
        #expect(try index.count("tagged") == 3)
    }

    @Test func aQueuedWriteThatFailsIsReportedAndLeavesTheDocumentToProjectAgain() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/index.sqlite"
        let index = try RecordIndex(path: path)
        try index.register([Self.notes])
        let doc = Doc(clientID: 3)
        let tracker = try RecordChangeTracker(doc: doc, models: [Self.notes])
        try RecordLayout.write(["text": "one"], id: "a", model: Self.notes, in: doc)
        index.enqueue("inbox", doc: doc, changes: tracker.take(), models: ["notes": Self.notes], sequence: 1)
        #expect(index.queuedFailures.isEmpty)
        // Another connection takes the model's table away: the next queued write fails.
        try SQLiteConnection(path: path).execute("DROP TABLE \"r_notes\"")
        try RecordLayout.write(["text": "two"], id: "b", model: Self.notes, in: doc)
        index.enqueue("inbox", doc: doc, changes: tracker.take(), models: ["notes": Self.notes], sequence: 2)
        #expect(index.failure(of: "inbox") != nil)
        #expect(index.queuedFailures["inbox"] != nil)
        // Its position stayed behind, so the document is projected whole on its next open.
        #expect(try index.needsProjection("inbox", stateVector: doc.encodeStateVector(), sequence: 2))
        index.clearFailure(of: "inbox")
        #expect(index.failure(of: "inbox") == nil)
    }

    /// The writer puts what it finds queued into one SQLite transaction; when that fails
    /// it writes each projection on its own: the one that fails is rolled back alone,
    /// and the others written with it still go in and advance their documents' positions.
    @Test func aFailingProjectionAmongSeveralQueuedLeavesTheOthersWritten() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/index.sqlite"
        let index = try RecordIndex(path: path)
        try index.register([Self.notes, Self.tagged])
        let broken = Doc(clientID: 3)
        let brokenTracker = try RecordChangeTracker(doc: broken, models: [Self.notes])
        let healthy = Doc(clientID: 4)
        let healthyTracker = try RecordChangeTracker(doc: healthy, models: [Self.tagged])
        // Another connection takes the notes table away: projections of notes fail.
        try SQLiteConnection(path: path).execute("DROP TABLE \"r_notes\"")
        for n in 0..<3 {
            try RecordLayout.write(["text": .string("n\(n)")], id: "n\(n)", model: Self.notes, in: broken)
            index.enqueue("broken", doc: broken, changes: brokenTracker.take(), models: ["notes": Self.notes], sequence: UInt64(n + 1))
            try RecordLayout.write(
                ["title": .string("t\(n)"), "tags": .stringSet(["m\(n)"])], id: "t\(n)", model: Self.tagged, in: healthy)
            index.enqueue("healthy", doc: healthy, changes: healthyTracker.take(), models: ["tagged": Self.tagged], sequence: UInt64(n + 1))
        }
        #expect(try index.count("tagged", documents: ["healthy"]) == 3)
        #expect(try index.count("tagged", filter: ["tags": ["$contains": "m2"]]) == 1)
        #expect(index.counters.projectedRecords == 3)
        #expect(index.failure(of: "broken") != nil)
        #expect(index.failure(of: "healthy") == nil)
        #expect(try index.needsProjection("broken", stateVector: broken.encodeStateVector(), sequence: 3))
        #expect(try !index.needsProjection("healthy", stateVector: healthy.encodeStateVector(), sequence: 3))
    }

    @Test func aChangeQueuedBeforeASchemaChangeLeavesTheDocumentToProjectAgain() throws {
        let index = try RecordIndex(path: ":memory:")
        try index.register([Self.notes])
        let doc = Doc(clientID: 3)
        let tracker = try RecordChangeTracker(doc: doc, models: [Self.notes])
        try RecordLayout.write(["text": "hello"], id: "a", model: Self.notes, in: doc)
        index.enqueue("inbox", doc: doc, changes: tracker.take(), models: ["notes": Self.notes], sequence: 1)
        let changed = ModelSchema("notes", fields: [FieldSchema("text", .string), FieldSchema("pinned", .boolean)])
        // Registration writes what was queued first, then replaces the tables.
        try index.register([changed])
        #expect(try index.count("notes", documents: ["inbox"]) == 0)
        #expect(try index.needsProjection("inbox", stateVector: doc.encodeStateVector(), sequence: 1))
    }
}

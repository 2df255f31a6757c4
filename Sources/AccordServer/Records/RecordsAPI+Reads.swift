import AccordCRDT
import AccordNet
import AccordStore
import AccordRecords

extension RecordsAPI {
    /// Most records one query page returns; also the page size when `limit` is absent.
    static let maxPageSize = 1000

    /// `GET …/records/{model}/{id}`: the record with its `ETag`, or 404 `RECORD_NOT_FOUND`.
    func read(model name: String, id: String, document: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        try requireRole(.reader, of: user, on: document)
        let (model, _) = try model(name, in: document)
        let record = try hub.withRoom(document) { room throws(AccordError) in
            try Self.current(id, of: model, in: room.doc, document: document)
        }
        guard let record else {
            throw AccordError(.recordNotFound, "Model \"\(name)\" has no record \"\(id)\"", details: ["model": name, "id": id])
        }
        return Self.result(record, headers: [(name: "etag", value: RecordETag.of(record))])
    }

    /// `POST …/records/{model}/query` with `{"filter"?, "sort"?: [{"field", "direction"?:
    /// 1|-1}], "limit"?, "cursor"?}`: one page, `{"result": {"data", "nextCursor", "hasMore"}}`.
    func query(_ body: AnyValue?, model name: String, document: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        let fields = try Self.object(body, allowed: ["filter", "sort", "limit", "cursor"])
        let filter = try Self.filter(fields["filter"])
        var options = QueryOptions(documents: [document], sortOrder: try Self.sortOrder(fields["sort"]))
        options.limit = try Self.limit(fields["limit"])
        if let cursor = fields["cursor"] {
            guard case .string(let text) = cursor else { throw Self.invalidQuery("cursor", "expected a string") }
            options.cursor = text
        }
        try requireRole(.reader, of: user, on: document)
        let (model, models) = try model(name, in: document)
        try FilterLimits.check(filter)
        let page = try onIndex(document, models) { index throws(AccordError) in
            try index.queryPaged(model.name, filter: filter, options: options)
        }
        return Self.result(page.json(model: model))
    }

    /// `POST …/records/{model}/count` with `{"filter"?}`: `{"result": {"count": n}}`.
    func count(_ body: AnyValue?, model name: String, document: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        let fields = try Self.object(body, allowed: ["filter"])
        let filter = try Self.filter(fields["filter"])
        try requireRole(.reader, of: user, on: document)
        let (model, models) = try model(name, in: document)
        try FilterLimits.check(filter)
        let count = try onIndex(document, models) { index throws(AccordError) in
            try index.count(model.name, filter: filter, documents: [document])
        }
        return Self.result(.object(OrderedObject([("count", .int(Int64(count)))])))
    }

    /// `POST …/records/{model}/aggregate` with the records layer's aggregate options
    /// (without `documents`: the path names the document): `{"result": {"rows": [...]}}`.
    func aggregate(_ body: AnyValue?, model name: String, document: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        let json = body ?? .object(OrderedObject())
        if case .object(let fields) = json, fields["documents"] != nil {
            throw Self.invalidQuery("documents", "the path names the document")
        }
        var options = try AggregateOptions(json: json)
        options.documents = [document]
        try requireRole(.reader, of: user, on: document)
        let (model, models) = try model(name, in: document)
        try FilterLimits.check(options.filter)
        let rows = try onIndex(document, models) { index throws(AccordError) in
            try index.aggregate(model.name, options)
        }
        return Self.result(.object(OrderedObject([("rows", .array(rows.map { options.json($0) }))])))
    }

    /// Runs `body` on the document's index, current with the room's `Doc`; or, while no
    /// room holds the document, on its detached index if that is current with the store
    /// (an ingest's, see RecordsAPI+IngestNewRecords.swift), so that a query after an
    /// ingest does not load a million records into memory to count them.
    private func onIndex<T>(
        _ document: DocumentID, _ models: [ModelSchema], _ body: (RecordIndex) throws(AccordError) -> T
    ) throws(AccordError) -> T {
        let detached = try hub.withUnloadedDocument(document) { () throws(AccordError) -> T? in
            let stored = ServerRecordIndexes.StoredVersion(try hub.documents.metadata(document))
            guard let index = indexes.detachedIndex(for: document, models: models, stored: stored) else { return nil }
            return try body(index)
        }
        if let detached, let answer = detached { return answer }
        return try hub.withRoom(document) { room throws(AccordError) -> T in
            try body(try indexes.index(for: document, doc: room.doc, models: models))
        }
    }

    // MARK: Reading query bodies

    private static func object(_ body: AnyValue?, allowed: Set<String>) throws(AccordError) -> OrderedObject {
        guard let body else { return OrderedObject() }
        guard case .object(let fields) = body else { throw invalidQuery("body", "expected an object") }
        if let unknown = fields.keys.first(where: { !allowed.contains($0) }) {
            throw invalidQuery(unknown, "unknown key (expected \(allowed.sorted().joined(separator: ", ")))")
        }
        return fields
    }

    private static func filter(_ json: AnyValue?) throws(AccordError) -> Filter {
        guard let json else { return .all }
        guard case .object = json else { throw invalidQuery("filter", "expected an object") }
        return Filter(json: json)
    }

    private static func sortOrder(_ json: AnyValue?) throws(AccordError) -> [SortKey] {
        guard let json else { return [] }
        guard case .array(let keys) = json else { throw invalidQuery("sort", "expected an array of {field, direction}") }
        var order: [SortKey] = []
        for (index, key) in keys.enumerated() {
            guard case .object(let entry) = key, case .string(let field)? = entry["field"],
                  entry.keys.allSatisfy({ $0 == "field" || $0 == "direction" })
            else {
                throw invalidQuery("sort[\(index)]", "expected {\"field\": name, \"direction\": 1 or -1}")
            }
            switch entry["direction"] {
            case nil, .int(1)?: order.append(SortKey(field, .ascending))
            case .int(-1)?: order.append(SortKey(field, .descending))
            default: throw invalidQuery("sort[\(index)].direction", "expected 1 or -1")
            }
        }
        return order
    }

    private static func limit(_ json: AnyValue?) throws(AccordError) -> Int {
        guard let json else { return maxPageSize }
        guard case .int(let number) = json, number >= 0, number <= maxPageSize else {
            throw invalidQuery("limit", "expected a whole number from 0 to \(maxPageSize)")
        }
        return Int(number)
    }

    static func invalidQuery(_ path: String, _ message: String) -> AccordError {
        AccordError(.invalidQuery, "\(path): \(message)", details: ["path": path])
    }
}

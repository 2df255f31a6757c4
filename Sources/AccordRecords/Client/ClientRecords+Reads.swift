public import AccordCRDT
public import AccordStore

extension ClientRecords {
    /// The record `id` of `model`, searched in `documents` (every open one when nil).
    /// When several documents hold the id, the first by document id.
    public func find(_ model: String, id: String, in documents: [DocumentID]? = nil) throws(AccordError) -> IndexedRecord? {
        try query(model, filter: ["id": .string(id)], options: QueryOptions(documents: documents, limit: 1)).first
    }

    /// Every record of `model` in the open documents.
    public func findAll(_ model: String) throws(AccordError) -> [IndexedRecord] {
        try query(model)
    }

    /// The records of `model` that match `filter` (see ``Filter``), in the options' order.
    public func query(
        _ model: String, filter: Filter = .all, options: QueryOptions = QueryOptions()
    ) throws(AccordError) -> [IndexedRecord] {
        try index.query(model, filter: filter, options: scoped(options))
    }

    /// The first record of the query, or nil.
    public func queryOne(
        _ model: String, filter: Filter = .all, options: QueryOptions = QueryOptions()
    ) throws(AccordError) -> IndexedRecord? {
        var first = options
        first.limit = 1
        return try query(model, filter: filter, options: first).first
    }

    /// One page of the query: `data`, `nextCursor`, `hasMore`.
    public func queryPaged(
        _ model: String, filter: Filter = .all, options: QueryOptions = QueryOptions()
    ) throws(AccordError) -> QueryPage {
        try index.queryPaged(model, filter: filter, options: scoped(options))
    }

    /// How many records of `model` match `filter`.
    public func count(_ model: String, filter: Filter = .all, documents: [DocumentID]? = nil) throws(AccordError) -> Int {
        try index.count(model, filter: filter, documents: scope(documents))
    }

    /// See ``AggregateOptions``.
    public func aggregate(_ model: String, _ options: AggregateOptions) throws(AccordError) -> [AggregateRow] {
        var scopedOptions = options
        scopedOptions.documents = scope(options.documents)
        return try index.aggregate(model, scopedOptions)
    }

    private func scoped(_ options: QueryOptions) -> QueryOptions {
        var scopedOptions = options
        scopedOptions.documents = scope(options.documents)
        return scopedOptions
    }
}

extension ClientRecords {
    /// See ``RecordIndex/traverse(_:id:in:relationship:options:)``; `document` must be open.
    public func traverse(
        _ model: String, id: String, in document: DocumentID, relationship: String, options: QueryOptions = QueryOptions()
    ) throws(AccordError) -> QueryPage {
        guard documents.contains(document) else { return QueryPage(data: [], nextCursor: nil) }
        return try index.traverse(model, id: id, in: document, relationship: relationship, options: options)
    }
}

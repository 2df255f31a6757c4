public import AccordStore

/// A record as a query returns it: the document it lives in, and its values. A field
/// that is absent or null in the document is absent here (the index holds them as one).
public struct IndexedRecord: Sendable, Hashable {
    public var document: DocumentID
    public var record: RecordData

    public init(document: DocumentID, record: RecordData) {
        self.document = document
        self.record = record
    }

    public var id: String { record.id }
    public subscript(field: String) -> RecordValue? { record[field] }
}

/// How a query scopes, orders and cuts its results.
public struct QueryOptions: Sendable, Hashable {
    /// The documents to search: nil for every document, `[]` for none.
    public var documents: [DocumentID]?
    /// Sort keys in order; ties are broken by id, then document. Absent and null sort
    /// as one value, first ascending and last descending.
    public var sortOrder: [SortKey]
    /// At most this many records.
    public var limit: Int?
    /// Start after the record this cursor names (a ``QueryPage/nextCursor`` of the
    /// same query).
    public var cursor: String?

    public init(documents: [DocumentID]? = nil, sortOrder: [SortKey] = [], limit: Int? = nil, cursor: String? = nil) {
        self.documents = documents
        self.sortOrder = sortOrder
        self.limit = limit
        self.cursor = cursor
    }
}

public import AccordStore

/// A record as a query returns it: the document it lives in, and its values. A field
/// that is absent or null in the document is absent here (the index holds them as one).
public struct IndexedRecord: Sendable, Hashable {
    public var document: DocumentID
    public var record: RecordData
    /// Records loaded by a query's `include`, by relationship name: the parent of a
    /// `refersTo` (none or one), the children of a `hasMany`, the records reached by a
    /// `hasManyThrough`.
    public var related: [String: [IndexedRecord]] = [:]

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
    /// Relationships whose records to load with each result (``IndexedRecord/related``).
    public var include: [Include]

    public init(
        documents: [DocumentID]? = nil, sortOrder: [SortKey] = [], limit: Int? = nil, cursor: String? = nil,
        include: [Include] = []
    ) {
        self.documents = documents
        self.sortOrder = sortOrder
        self.limit = limit
        self.cursor = cursor
        self.include = include
    }
}

/// A relationship to load with a query's results, by name; `limit` caps the records
/// loaded per result for `hasMany` and `hasManyThrough`.
public struct Include: Sendable, Hashable, ExpressibleByStringLiteral {
    public var relationship: String
    public var limit: Int?

    public init(_ relationship: String, limit: Int? = nil) {
        self.relationship = relationship
        self.limit = limit
    }

    public init(stringLiteral relationship: String) { self.init(relationship) }
}

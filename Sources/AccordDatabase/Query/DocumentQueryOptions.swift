public import AccordRecords

/// How a collection query sorts, pages and shapes its results.
public struct DocumentQueryOptions: Sendable, Hashable {
    /// Sort keys (key paths, `_id` for the id) in order; ties are broken by id. Absent and
    /// null sort as one value, first ascending and last descending; values of different
    /// types sort by type: null, booleans (false < true), numbers, strings (by code
    /// point), then arrays and objects (among themselves by id).
    public var sortOrder: [SortKey]
    /// At most this many results (nil: all).
    public var limit: Int?
    /// Skip this many results first.
    public var offset: Int
    /// The key paths a result's ``QueryResult/toJSON()`` holds; nil for the whole document.
    public var select: [String]?
    /// Start after the row this cursor names (a ``DocumentQueryPage/nextCursor`` of the
    /// same filter and sort keys). Unlike `offset`, a cursor visits every document exactly
    /// once while others are saved between pages.
    public var cursor: String?

    public init(
        sortOrder: [SortKey] = [], limit: Int? = nil, offset: Int = 0, select: [String]? = nil, cursor: String? = nil
    ) {
        self.sortOrder = sortOrder
        self.limit = limit
        self.offset = offset
        self.select = select
        self.cursor = cursor
    }
}

/// One page of a query: its results and, when more match, the cursor of the next page.
public struct DocumentQueryPage {
    public let results: [QueryResult]
    /// Pass as ``DocumentQueryOptions/cursor`` for the next page; nil when this is the last.
    public let nextCursor: String?
    public var hasMore: Bool { nextCursor != nil }
}

public import AccordStore

/// The order of query results, the same in memory as in SQL: each sort key in turn
/// (absent and null are one value, first ascending and last descending; otherwise the
/// field's own order: numbers, false < true, strings by code points), then id, then
/// document, both ascending by code points.
public struct RecordOrder: Sendable, Hashable {
    public var keys: [SortKey]

    public init(_ keys: [SortKey]) { self.keys = keys }

    /// Whether `a` comes before `b`.
    public func precedes(_ a: IndexedRecord, _ b: IndexedRecord) -> Bool {
        for key in keys {
            let order = Self.compare(a[key.field], b[key.field])
            if order != 0 { return key.direction == .ascending ? order < 0 : order > 0 }
        }
        if !CodePoints.equal(a.id, b.id) { return CodePoints.less(a.id, b.id) }
        return CodePoints.less(a.document.rawValue, b.document.rawValue)
    }

    /// Null (or absent) below everything; values of one field share a type.
    static func compare(_ a: RecordValue?, _ b: RecordValue?) -> Int {
        let aNull = a == nil || a == .null
        let bNull = b == nil || b == .null
        if aNull || bNull { return aNull == bNull ? 0 : (aNull ? -1 : 1) }
        return a!.compare(b!) ?? 0
    }
}

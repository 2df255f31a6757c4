public import AccordCRDT

/// Which records a query wants, written as a dictionary literal in the shape of the
/// JSON filters other SDKs send:
///
/// ```swift
/// let open: Filter = ["completed": false, "priority": ["$gte": 2]]
/// let either: Filter = ["$or": [["title": ["$startsWith": "Buy"]], ["tags": ["$contains": "urgent"]]]]
/// ```
///
/// Operators: `$eq $ne $gt $gte $lt $lte $in $nin $startsWith $endsWith $containsText
/// $contains $exists`, and `$and` / `$or` over filters. A plain value is `$eq`; several
/// keys in one object must all hold. A filter is checked when a query runs: a malformed
/// one is `INVALID_QUERY` naming the path to the fault (``compile(for:)``).
///
/// Semantics (``RecordPredicate`` evaluates them; the SQL path must agree):
/// - an absent field and a stored null are one value, null;
/// - `$eq`, comparisons and `$in` match only records that carry a non-null value of the
///   operand's type; `{f: null}` and `{f: {$eq: null}}` match records without `f` or
///   with null; `$ne` is exactly not-`$eq` and `$nin` not-`$in` (so both match records
///   without the field, and `null` inside `$nin` excludes them);
/// - values of different types are never equal and never ordered; comparing with null
///   matches nothing;
/// - strings compare by Unicode code points with no normalisation; `$startsWith` and
///   `$endsWith` are case-sensitive and `""` matches every string; `$containsText`
///   compares with full Unicode case folding; text operators never match non-strings;
/// - `$contains` asks whether a string set has a member; `$exists: true` matches
///   records whose field is present and not null.
public struct Filter: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// The filter as JSON: an object.
    public let json: AnyValue

    public init(dictionaryLiteral elements: (String, AnyValue)...) {
        json = .object(OrderedObject(elements))
    }

    /// A filter from its JSON form (an object), as the CLI and other SDKs send it.
    public init(json: AnyValue) { self.json = json }

    /// Every record.
    public static let all: Filter = [:]
}

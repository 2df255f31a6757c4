/// A counter that any number of replicas increase concurrently, offline or not, and
/// whose value is the exact sum of every increase ("likes": two devices each adding 1
/// give 2), readable by any Yjs peer.
///
/// **Layout.** No new wire type: a counter is a ``YMap`` whose keys are client IDs in
/// decimal (`"1234567"`) and whose values are integers, each the total of the increases
/// made by that client. A replica only ever writes its own key, so no two replicas
/// write one key concurrently and no increase is lost; the value is the sum of the
/// entries. A Yjs peer reads it as a plain map (`Object.values(map.toJSON())` summed)
/// and may increase it the same way, under its own client ID.
///
/// Entries that are not integers (a peer that broke the layout) count as 0; integral
/// floating-point values (what JavaScript and pycrdt write for integers) count as
/// integers.
///
/// ```swift
/// let likes = try doc.getCounter("likes")
/// try likes.increase(by: 1)
/// likes.value   // 1, and the sum of everyone's increases once synced
/// ```
public struct YCounter {
    /// The map holding the per-client totals.
    public let map: YMap

    public init(_ map: YMap) { self.map = map }

    /// The sum of every client's total (saturating at the ends of `Int64`).
    public var value: Int64 {
        var sum: Int64 = 0
        for (_, entry) in map.entries {
            let (added, overflow) = sum.addingReportingOverflow(Self.total(entry))
            sum = overflow ? (sum < 0 ? .min : .max) : added
        }
        return sum
    }

    /// This replica's own total (what it added, under its current client ID).
    public var ownTotal: Int64 { map.get(ownKey).map(Self.total) ?? 0 }

    /// Adds `amount` (negative to decrease).
    /// - Throws: ``ErrorCode/invalidArgument`` when this replica's own total would leave
    ///   the range of `Int64`; ``ErrorCode/invalidType`` when the map was deleted.
    public func increase(by amount: Int64) throws(AccordError) {
        guard amount != 0 else { return }
        let (total, overflow) = ownTotal.addingReportingOverflow(amount)
        guard !overflow else {
            throw AccordError(.invalidArgument, "the counter's own total would overflow Int64")
        }
        try map.set(ownKey, .int(total))
    }

    private var ownKey: String { String(map.doc.clientID) }

    private static func total(_ entry: YValue) -> Int64 {
        switch entry.value {
        case .int(let n)?: return n
        case .double(let d)? where d.rounded() == d && abs(d) < 9.2e18: return Int64(d)
        default: return 0
        }
    }
}

extension Doc {
    /// The root counter named `name` (a root map laid out as ``YCounter`` describes).
    /// - Throws: ``ErrorCode/typeMismatch`` when the root is a text or array.
    public func getCounter(_ name: String) throws(AccordError) -> YCounter {
        YCounter(try getMap(name))
    }
}

extension YMap {
    /// Sets `key` to a new counter (an empty nested map) and returns it.
    @discardableResult
    public func setCounter(_ key: String) throws(AccordError) -> YCounter { YCounter(try setMap(key)) }

    /// The counter at `key`, or nil when `key` holds no map.
    public func counter(_ key: String) -> YCounter? { get(key)?.map.map(YCounter.init) }
}

extension YArray {
    /// Inserts a new counter (an empty nested map) at `index` and returns it.
    @discardableResult
    public func insertCounter(_ index: Int) throws(AccordError) -> YCounter { YCounter(try insertMap(index)) }
}

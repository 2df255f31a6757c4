/// Index of an item in ``Store/items``; `-1` means none.
typealias ItemRef = Int32
let noItem: ItemRef = -1

/// Index of a client in ``Store/clientIDs`` (interned: items store 4 bytes, not 8).
typealias ClientIndex = UInt32
let noClient: ClientIndex = .max

/// What an item holds. The payload lives in ``Item/a`` / ``Item/b``:
/// - `string`: `a` = offset of the item's UTF-16 units in ``Store/text``;
/// - `any`, `json`: `a` = offset of the item's values in ``Store/valuePool``;
/// - `binary`, `embed`, `format`, `doc`: `a` = index in ``Store/payloads``;
/// - `type`: `a` = index in ``Store/types``;
/// - `deleted`, `gc`: nothing.
enum ContentKind: UInt8 {
    // Raw values are the wire's content refs (GC structs are written as ref 0).
    case gc = 0, deleted = 1, json = 2, binary = 3, string = 4, embed = 5, format = 6, type = 7, any = 8, doc = 9

    /// Counts toward the parent's length when not deleted.
    @inline(__always) var isCountable: Bool { self != .gc && self != .deleted && self != .format }
    /// Adjacent items with this content may be joined into one.
    @inline(__always) var isMergeable: Bool { self == .string || self == .any || self == .json || self == .deleted || self == .gc }
    /// Can be split at any unit.
    @inline(__always) var isSplittable: Bool { isMergeable }
}

/// One struct of the document: a run of `length` units made by one client.
///
/// Items are plain values in one arena (``Store/items``) linked by index, so the
/// whole document is a few flat arrays instead of one object per run.
///
/// The small computed properties are forced inline: called out of line, each call
/// copied the whole 56-byte item to the stack first.
struct Item {
    var client: ClientIndex
    var clock: UInt32
    var length: UInt32
    var originClient: ClientIndex = noClient
    var originClock: UInt32 = 0
    var rightOriginClient: ClientIndex = noClient
    var rightOriginClock: UInt32 = 0
    var left: ItemRef = noItem
    var right: ItemRef = noItem
    /// Index of the parent type in ``Store/types``; -1 for GC structs.
    var parent: Int32 = -1
    /// Interned map key in ``Store/keys``; -1 when the item is in a list.
    var parentSub: Int32 = -1
    var kind: ContentKind
    var deleted: Bool = false
    /// Protected from garbage collection (undo snapshots; kept for parity with Yjs).
    var keep: Bool = false
    /// Set once an undo manager re-inserted this (deleted) item as a new one; the new
    /// item's ID is in ``Store/redoneTargets`` (Yjs `Item.redone`). Kept here, in a
    /// byte the layout pads anyway, so that merging checks it without a lookup.
    var redone: Bool = false
    var a: UInt32 = 0
    var b: UInt32 = 0

    @inline(__always) var hasOrigin: Bool { originClient != noClient }
    @inline(__always) var hasRightOrigin: Bool { rightOriginClient != noClient }
    @inline(__always) var isCountable: Bool { kind.isCountable }
    /// Length it contributes to its parent's visible length right now.
    @inline(__always) var visibleLength: Int { (!deleted && kind.isCountable) ? Int(length) : 0 }
    @inline(__always) var lastClock: UInt32 { clock + length - 1 }
}

/// A compact ID inside one store (client interned).
struct StoreID: Hashable {
    var client: ClientIndex
    var clock: UInt32
}

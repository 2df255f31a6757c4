/// The state of one shared type (a root, or the type held by a ContentType item).
struct TypeRecord {
    /// `nil` for a root whose kind is not known yet (only updates have mentioned it).
    var kind: TypeKind?
    /// The item holding this type, or `noItem` for a root.
    var item: ItemRef = noItem
    var rootName: String?
    /// First item of the list part.
    var start: ItemRef = noItem
    /// For each map key, the rightmost item of that key's chain (the current value).
    var map = KeyMap()
    /// Visible length of the list part (countable, not deleted).
    var length: Int = 0
    /// A cached position: `visible length of all items before markerItem == markerIndex`.
    var markerItem: ItemRef = noItem
    var markerIndex: Int = 0
    /// Set once a Format item was integrated into this type (enables text clean-ups).
    var hasFormatting = false

    init(kind: TypeKind?, item: ItemRef = noItem, rootName: String? = nil) {
        self.kind = kind
        self.item = item
        self.rootName = rootName
    }

    mutating func clearMarker() { markerItem = noItem }
}

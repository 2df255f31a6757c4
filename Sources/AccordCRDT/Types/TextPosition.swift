/// A cursor between two items of a text, with the formatting in effect there
/// (Yjs's `ItemTextListPosition`).
struct TextPosition {
    var left: ItemRef
    var right: ItemRef
    /// Visible UTF-16 offset of the cursor.
    var index: Int
    /// Attributes in effect at the cursor (keys whose value is null are absent).
    var attributes: OrderedObject

}

extension Store {
    /// Steps `pos` over its right item: a live Format item updates the attributes,
    /// live content advances the index.
    func forward(_ pos: inout TextPosition) {
        let item = items[Int(pos.right)]
        if !item.deleted {
            if let (key, value) = formatPair(of: item) {
                pos.attributes.apply(key: key, value: value)
            } else if item.isCountable {
                pos.index += Int(item.length)
            }
        }
        pos.left = pos.right
        pos.right = item.right
    }
}

extension OrderedObject {
    /// Formatting semantics: a null value removes the key.
    mutating func apply(key: String, value: AnyValue) {
        if value.isNull { self[key] = nil } else { self[key] = value }
    }
}

/// Yjs's `equalAttrs`: equal values, with objects compared shallowly.
func attributesEqual(_ a: AnyValue?, _ b: AnyValue?) -> Bool {
    (a ?? .null) == (b ?? .null)
}

/// JavaScript `===` on attribute values: objects and arrays are never identical
/// (Yjs compares decoded attribute objects by identity in its clean-ups).
func attributesIdentical(_ a: AnyValue?, _ b: AnyValue?) -> Bool {
    switch a ?? .null {
    case .object, .array, .bytes: return false
    default: return (a ?? .null) == (b ?? .null)
    }
}

extension Store {
    /// Whether visible offset `index` of text `t` falls between the halves of a surrogate
    /// pair held by one item.
    mutating func splitsSurrogatePair(type t: Int32, at index: Int) -> Bool {
        // Most documents hold no character outside the BMP: then no offset can cut a
        // pair, and the seek below (a second walk per edit) is skipped.
        guard index > 0, index < types[Int(t)].length, holdsSurrogatePairs() else { return false }
        let (ref, before) = seek(type: t, index: index)
        guard ref != noItem, index > before, items[Int(ref)].kind == .string else { return false }
        let unit = Int(items[Int(ref)].a) + index - before
        return UTF16.isTrailSurrogate(text[unit]) && UTF16.isLeadSurrogate(text[unit - 1])
    }

    /// Whether the text storage holds a lead surrogate anywhere. Scans only the units
    /// added since the last call (storage grows at the end; a rollback that truncated it
    /// starts the scan over), so it costs nothing per edit once caught up.
    mutating func holdsSurrogatePairs() -> Bool {
        if surrogateScan.position > text.count { surrogateScan = (0, false) }
        if surrogateScan.found { return true }
        var position = surrogateScan.position
        while position < text.count {
            if UTF16.isLeadSurrogate(text[position]) {
                surrogateScan = (position, true)
                return true
            }
            position += 1
        }
        surrogateScan = (position, false)
        return false
    }
}

/// Rich-text editing, following Yjs's YText algorithms so that the items (and so the
/// bytes) match what a Yjs peer makes (design/yjs-wire-format.md section 4.5).
///
/// These are `Store` methods so that a whole edit runs inside one access to the
/// document's store: calling non-mutating methods on a class's struct property makes
/// Swift copy the struct (and retain every buffer in it) per call.
extension Store {
    /// The position before visible unit `index`: right after the content item that
    /// ends there, with the attributes in effect.
    mutating func textPosition(type t: Int32, index: Int) -> TextPosition {
        let left = itemEnding(at: index, type: t)
        let right = left == noItem ? types[Int(t)].start : items[Int(left)].right
        var attributes = OrderedObject()
        if types[Int(t)].hasFormatting, left != noItem {
            // Walk from the start: every live Format item left of the cursor applies.
            var ref = types[Int(t)].start
            while ref != right {
                let item = items[Int(ref)]
                if !item.deleted, let (k, v) = formatPair(of: item) { attributes.apply(key: k, value: v) }
                ref = item.right
            }
        }
        return TextPosition(left: left, right: right, index: index, attributes: attributes)
    }

    /// Inserts text or an embed at `pos` with `attributes` (nil: inherit what is in effect).
    mutating func insertText(type t: Int32, _ pos: inout TextPosition, _ content: StructContent,
                    attributes given: OrderedObject?, _ tr: inout TransactionState) {
        var attributes = given ?? pos.attributes
        for (key, _) in pos.attributes where attributes[key] == nil { attributes[key] = .null }
        minimizeAttributeChanges(&pos, attributes)
        var negated = insertAttributes(type: t, &pos, attributes, &tr)
        let ref = insertLocalItem(content, type: t, left: pos.left, right: pos.right, &tr)
        stepOverInserted(ref, count: content.length, &pos)
        insertNegatedAttributes(type: t, &pos, &negated, &tr)
    }

    /// Moves `pos` past content just inserted at it, which ends item `ref`. Not
    /// ``forward(_:)``: text may have been appended to an existing item
    /// (Store+ExtendLocal.swift), so only `count` units are new.
    func stepOverInserted(_ ref: ItemRef, count: Int, _ pos: inout TextPosition) {
        pos.left = ref
        pos.right = items[Int(ref)].right
        pos.index += count
    }

    /// Inserts plain `text` at visible `index` of a text that has no formatting at all,
    /// with no attributes given: ``insertText(type:_:_:attributes:_:)`` reduced to what
    /// it does then, without building attribute sets or an intermediate array.
    mutating func insertPlainText(type t: Int32, at index: Int, _ string: String, _ tr: inout TransactionState) {
        // No Format item was ever integrated into the type, so the attributes in effect
        // are empty everywhere and no Format item is there to skip or to negate.
        precondition(!types[Int(t)].hasFormatting, "plain insert into formatted text")
        var left = itemEnding(at: index, type: t)
        var right = left == noItem ? types[Int(t)].start : items[Int(left)].right
        // minimizeAttributeChanges: skip the deleted items after the cursor, as Yjs does.
        while right != noItem, items[Int(right)].deleted {
            left = right
            right = items[Int(right)].right
        }
        let extend = canExtendOwnLastItem(type: t, left: left, right: right, ownClient: tr.ownClient)
        let offset = UInt32(text.count)
        let count = appendUTF16(of: string)
        placeLocalText(at: offset, count: count, extend: extend, type: t, left: left, right: right, &tr)
        markerInserted(type: t, at: index, count: count)
    }

    /// Moves right over deleted items and Format items that already say what we want.
    mutating func minimizeAttributeChanges(_ pos: inout TextPosition, _ attributes: OrderedObject) {
        while pos.right != noItem {
            let item = items[Int(pos.right)]
            if item.deleted {
                forward(&pos)
            } else if let (k, v) = formatPair(of: item), attributesEqual(attributes[k], v) {
                forward(&pos)
            } else {
                break
            }
        }
    }

    /// Inserts a Format item for each attribute that differs from what is in effect;
    /// returns the previous values, to be restored after the content.
    mutating func insertAttributes(type t: Int32, _ pos: inout TextPosition, _ attributes: OrderedObject,
                          _ tr: inout TransactionState) -> OrderedObject {
        var negated = OrderedObject()
        for (key, value) in attributes {
            let current = pos.attributes[key] ?? .null
            if !attributesEqual(current, value) {
                negated[key] = current
                let ref = insertLocalItem(.format(key: key, value: value), type: t, left: pos.left, right: pos.right, &tr)
                pos.right = ref
                forward(&pos)
            }
        }
        return negated
    }

    /// Restores the attributes `negated` after inserted content, unless a Format item
    /// right there already does.
    mutating func insertNegatedAttributes(type t: Int32, _ pos: inout TextPosition, _ negated: inout OrderedObject,
                                 _ tr: inout TransactionState) {
        while pos.right != noItem {
            let item = items[Int(pos.right)]
            if item.deleted {
                forward(&pos)
            } else if let (k, v) = formatPair(of: item), attributesEqual(negated[k], v) {
                negated[k] = nil
                forward(&pos)
            } else {
                break
            }
        }
        for (key, value) in negated {
            let ref = insertLocalItem(.format(key: key, value: value), type: t, left: pos.left, right: pos.right, &tr)
            pos.right = ref
            forward(&pos)
        }
    }

    /// Applies `attributes` to `length` units from `pos` (Yjs `formatText`).
    mutating func formatText(type t: Int32, _ pos: inout TextPosition, length: Int, _ attributes: OrderedObject,
                    _ tr: inout TransactionState) {
        var remaining = length
        minimizeAttributeChanges(&pos, attributes)
        var negated = insertAttributes(type: t, &pos, attributes, &tr)
        loop: while pos.right != noItem {
            let item = items[Int(pos.right)]
            let isFormatOrDeleted = item.deleted || item.kind == .format
            guard remaining > 0 || (negated.count > 0 && isFormatOrDeleted) else { break }
            if !item.deleted {
                if let (key, value) = formatPair(of: item) {
                    if let wanted = attributes[key] {
                        if attributesEqual(wanted, value) {
                            negated[key] = nil
                        } else {
                            if remaining == 0 { break loop }
                            negated[key] = value
                        }
                        deleteItem(pos.right, &tr)
                    } else {
                        pos.attributes[key] = value
                    }
                } else if item.isCountable {
                    if remaining < Int(item.length) { split(pos.right, at: UInt32(remaining)) }
                    remaining -= Int(items[Int(pos.right)].length)
                }
            }
            forward(&pos)
        }
        if remaining > 0 {
            // Quill expects a trailing newline: formatting past the end appends newlines.
            let newlines = [UInt16](repeating: 0x0A, count: remaining)
            let ref = insertLocalText(units: newlines, type: t, left: pos.left, right: pos.right, &tr)
            stepOverInserted(ref, count: remaining, &pos)
        }
        insertNegatedAttributes(type: t, &pos, &negated, &tr)
    }

    /// Deletes `length` visible units from `pos`, then removes Format items made
    /// redundant by the deletion (Yjs `deleteText` + `cleanupFormattingGap`).
    mutating func deleteText(type t: Int32, _ pos: inout TextPosition, length: Int, _ tr: inout TransactionState) {
        var remaining = length
        let start = pos.right
        // Only formatted text needs the attributes at the start (copying them retains).
        let startAttributes = types[Int(t)].hasFormatting ? pos.attributes : OrderedObject()
        while remaining > 0, pos.right != noItem {
            let item = items[Int(pos.right)]
            if !item.deleted, item.isCountable {
                if remaining < Int(item.length) { split(pos.right, at: UInt32(remaining)) }
                remaining -= Int(items[Int(pos.right)].length)
                deleteItem(pos.right, &tr)
            }
            forward(&pos)
        }
        if start != noItem, types[Int(t)].hasFormatting {
            var current = pos.attributes
            cleanupFormattingGap(start: start, end: pos.right, startAttributes: startAttributes, current: &current, &tr)
            pos.attributes = current
        }
    }

    /// Deletes Format items between `start` and the next live content that are either
    /// overridden later in the gap or set a value already in effect.
    @discardableResult
    mutating func cleanupFormattingGap(start startRef: ItemRef, end curr: ItemRef, startAttributes: OrderedObject,
                              current: inout OrderedObject, _ tr: inout TransactionState) -> Int {
        var end = startRef
        var endFormats: [String: ItemRef] = [:]
        while end != noItem {
            let item = items[Int(end)]
            guard !item.isCountable || item.deleted else { break }
            if !item.deleted, let (k, _) = formatPair(of: item) { endFormats[k] = end }
            end = item.right
        }
        var cleanups = 0
        var reachedCurr = false
        var ref = startRef
        while ref != end {
            if ref == curr { reachedCurr = true }
            let item = items[Int(ref)]
            if !item.deleted, let (key, value) = formatPair(of: item) {
                let startValue = startAttributes[key] ?? .null
                if endFormats[key] != ref || attributesIdentical(startValue, value) {
                    deleteItem(ref, &tr)
                    cleanups += 1
                    if !reachedCurr, attributesIdentical(current[key], value), !attributesIdentical(startValue, value) {
                        current.apply(key: key, value: startValue)
                    }
                }
                if !reachedCurr, !items[Int(ref)].deleted { current.apply(key: key, value: value) }
            }
            ref = items[Int(ref)].right
        }
        return cleanups
    }

    /// Around a deleted content item: keep only the Format item nearest the following
    /// content for each key.
    mutating func cleanupContextlessGap(around start: ItemRef, _ tr: inout TransactionState) {
        var ref = start
        while ref != noItem {
            let right = items[Int(ref)].right
            guard right != noItem, items[Int(right)].deleted || !items[Int(right)].isCountable else { break }
            ref = right
        }
        var seen = Set<String>()
        while ref != noItem {
            let item = items[Int(ref)]
            guard item.deleted || !item.isCountable else { break }
            if !item.deleted, let (k, _) = formatPair(of: item) {
                if seen.contains(k) { deleteItem(ref, &tr) } else { seen.insert(k) }
            }
            ref = item.left
        }
    }

    /// Re-scans a whole text and removes redundant Format items (Yjs `cleanupYTextFormatting`).
    mutating func cleanupTextFormatting(type t: Int32, _ tr: inout TransactionState) {
        var start = types[Int(t)].start
        var end = start
        var startAttributes = OrderedObject()
        var current = OrderedObject()
        while end != noItem {
            let item = items[Int(end)]
            if !item.deleted {
                if let (k, v) = formatPair(of: item) {
                    current.apply(key: k, value: v)
                } else {
                    cleanupFormattingGap(start: start, end: end, startAttributes: startAttributes, current: &current, &tr)
                    startAttributes = current
                    start = end
                }
            }
            end = items[Int(end)].right
        }
    }
}

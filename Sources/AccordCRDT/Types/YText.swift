/// Shared rich text (Yjs `Y.Text`): a string with formatting attributes and embeds.
///
/// Indices and lengths count UTF-16 code units, as in Yjs, so they agree with every
/// peer. Use ``utf16Offset(of:in:)`` or ``utf16Offset(characterOffset:)`` to convert
/// from Swift string positions.
///
/// ```swift
/// let text = try doc.getText("body")
/// try text.insert(0, "Hello world")
/// try text.format(0, 5, ["bold": true])
/// text.delta   // [insert "Hello" {bold: true}, insert " world"]
/// ```
public struct YText {
    let doc: Doc
    let type: Int32

    /// Length in UTF-16 code units.
    public var length: Int { doc.store.types[Int(type)].length }

    /// The plain text, without formatting or embeds.
    public var string: String {
        if let ascii = asciiString { return ascii }
        var units: [UInt16] = []
        units.reserveCapacity(length)
        var ref = doc.store.types[Int(type)].start
        let store = doc.store
        while ref != noItem {
            let item = store.items[Int(ref)]
            if !item.deleted, item.kind == .string {
                units.append(contentsOf: store.text[Int(item.a)..<Int(item.a + item.length)])
            }
            ref = item.right
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// The plain text when it is all ASCII (the common case), copied unit by unit into
    /// the String's own storage; nil otherwise. `String(decoding:as: UTF16.self)` parses
    /// scalar by scalar and costs as much as loading the whole document.
    private var asciiString: String? {
        let store = doc.store
        var isASCII = true
        // The visible length bounds the text's units (embeds count but hold none).
        let text = String(unsafeUninitializedCapacity: store.types[Int(type)].length) { buffer in
            store.text.withUnsafeBufferPointer { units in
                var n = 0
                var ref = store.types[Int(type)].start
                while ref != noItem {
                    let item = store.items[Int(ref)]
                    if !item.deleted, item.kind == .string {
                        // Checked once per item, so that the copy below is a plain loop the
                        // compiler vectorizes: narrow every unit, test them all at the end.
                        let start = Int(item.a), count = Int(item.length)
                        guard count <= buffer.count - n, start + count <= units.count else {
                            isASCII = false
                            return 0
                        }
                        // In bounds by the guard above (no base address only when empty).
                        var bits: UInt16 = 0
                        if count > 0, let from = units.baseAddress.map({ $0 + start }),
                           let to = buffer.baseAddress.map({ $0 + n }) {
                            for k in 0..<count {
                                let unit = from[k]
                                bits |= unit
                                to[k] = UInt8(truncatingIfNeeded: unit)
                            }
                        }
                        guard bits < 0x80 else {
                            isASCII = false
                            return 0
                        }
                        n += count
                    }
                    ref = item.right
                }
                return n
            }
        }
        return isASCII ? text : nil
    }

    /// Inserts `text` at UTF-16 offset `index`. Without `attributes` the text takes
    /// the formatting in effect there; with them, exactly those attributes.
    /// - Throws: ``ErrorCode/indexOutOfBounds``, ``ErrorCode/invalidType``.
    public func insert(_ index: Int, _ text: String, attributes: OrderedObject? = nil) throws(AccordError) {
        guard !text.isEmpty else { return }
        if attributes == nil, !doc.store.types[Int(type)].hasFormatting {
            // The common case, typing into unformatted text, has a lean path of its own.
            try checkRange(index, 0)
            try doc.withTransaction { tr in doc.store.insertPlainText(type: type, at: index, text, &tr) }
            return
        }
        try insertContent(index, .string(Array(text.utf16)), attributes: attributes)
    }

    /// Inserts an embed (one unit long). Embeds take no formatting unless given.
    public func insertEmbed(_ index: Int, _ embed: AnyValue, attributes: OrderedObject = [:]) throws(AccordError) {
        try insertContent(index, .embed(embed), attributes: attributes)
    }

    private func insertContent(_ index: Int, _ content: StructContent, attributes: OrderedObject?) throws(AccordError) {
        try checkRange(index, 0)
        try doc.withTransaction { tr in
            var pos = doc.store.textPosition(type: type, index: index)
            doc.store.insertText(type: type, &pos, content, attributes: attributes, &tr)
            doc.store.markerInserted(type: type, at: index, count: content.length)
        }
    }

    /// Deletes `count` UTF-16 units from `index`.
    public func delete(_ index: Int, _ count: Int) throws(AccordError) {
        try checkRange(index, count)
        guard count > 0 else { return }
        try doc.withTransaction { tr in
            guard doc.store.types[Int(type)].hasFormatting else {
                // No Format item anywhere: nothing for the general path's attribute
                // tracking and formatting clean-up to do (see insertPlainText).
                doc.store.deleteVisible(type: type, at: index, count: count, collecting: doc.gc, &tr)
                return
            }
            var pos = doc.store.textPosition(type: type, index: index)
            doc.store.deleteText(type: type, &pos, length: count, &tr)
            doc.store.markerDeleted(type: type, at: index, count: count)
        }
    }

    /// Sets `attributes` on `count` units from `index`; a null value removes an attribute.
    public func format(_ index: Int, _ count: Int, _ attributes: OrderedObject) throws(AccordError) {
        try checkRange(index, count)
        guard count > 0 else { return }
        try doc.withTransaction { tr in
            var pos = doc.store.textPosition(type: type, index: index)
            guard pos.right != noItem else { return }
            doc.store.formatText(type: type, &pos, length: count, attributes, &tr)
        }
    }

    /// Applies a Quill delta: retains (with attributes to format), inserts and deletes.
    public func applyDelta(_ delta: [DeltaOp]) throws(AccordError) {
        try doc.checkAlive(type)
        try doc.withTransaction { (tr) throws(AccordError) in
            var pos = TextPosition(left: noItem, right: doc.store.types[Int(type)].start, index: 0, attributes: [:])
            for op in delta {
                switch op {
                case .insert(let content, let attributes):
                    let wire: StructContent
                    switch content {
                    case .text(let s):
                        guard !s.isEmpty else { continue }
                        wire = .string(Array(s.utf16))
                    case .embed(let v): wire = .embed(v)
                    case .type, .values:
                        throw AccordError(.invalidArgument, "a text delta can insert text and embeds only")
                    }
                    doc.store.insertText(type: type, &pos, wire, attributes: attributes ?? [:], &tr)
                case .retain(let n, let attributes):
                    // Where an op ends is where the next one starts: refused inside a pair,
                    // as for the index-based calls (the transaction rolls back).
                    try checkNotInsidePair(pos.index + n)
                    doc.store.formatText(type: type, &pos, length: n, attributes ?? [:], &tr)
                case .delete(let n):
                    try checkNotInsidePair(pos.index + n)
                    doc.store.deleteText(type: type, &pos, length: n, &tr)
                }
            }
            doc.store.types[Int(type)].clearMarker()
        }
    }

    /// The content as a delta of inserts with their attributes.
    public var delta: [DeltaOp] {
        var ops: [DeltaOp] = []
        var attributes = OrderedObject()
        var units: [UInt16] = []
        let store = doc.store
        func packText() {
            guard !units.isEmpty else { return }
            ops.append(.insert(.text(String(decoding: units, as: UTF16.self)), attributes: attributes.count > 0 ? attributes : nil))
            units.removeAll()
        }
        var ref = store.types[Int(type)].start
        while ref != noItem {
            let item = store.items[Int(ref)]
            if !item.deleted {
                switch item.kind {
                case .string:
                    units.append(contentsOf: store.text[Int(item.a)..<Int(item.a + item.length)])
                case .format:
                    packText()
                    if let (k, v) = store.formatPair(of: item) { attributes.apply(key: k, value: v) }
                case .embed, .type:
                    packText()
                    let content: DeltaContent
                    if item.kind == .type {
                        content = .type(doc.typeValue(Int32(item.a)))
                    } else if case .embed(let v) = store.payloads[Int(item.a)] {
                        content = .embed(v)
                    } else {
                        content = .embed(.null)
                    }
                    ops.append(.insert(content, attributes: attributes.count > 0 ? attributes : nil))
                default:
                    break
                }
            }
            ref = item.right
        }
        packText()
        return ops
    }

    /// The JSON view: the plain string.
    public var json: AnyValue { .string(string) }

    public func observe(_ handler: @escaping (YEvent) -> Void) -> Subscription {
        doc.addObserver(type: type, handler)
    }

    public func observeDeep(_ handler: @escaping ([YEvent]) -> Void) -> Subscription {
        doc.addDeepObserver(type: type, handler)
    }

    @inline(__always)
    private func checkRange(_ index: Int, _ count: Int) throws(AccordError) {
        try doc.checkAlive(type)
        guard index >= 0, count >= 0, index + count <= length else {
            throw AccordError(.indexOutOfBounds, "range \(index)..<\(index + count) is outside the text's 0..<\(length)")
        }
        // Typing at the end, the usual case, cannot cut a pair (checked inline).
        guard index < length else { return }
        try checkNotInsidePair(index)
        if count > 0 { try checkNotInsidePair(index + count) }
    }

    /// Refuses an offset between the two halves of a surrogate pair: an edit there would
    /// turn both into U+FFFD (Yjs's behaviour), losing the character.
    private func checkNotInsidePair(_ offset: Int) throws(AccordError) {
        if doc.store.splitsSurrogatePair(type: type, at: offset) {
            throw AccordError(.invalidArgument, "UTF-16 offset \(offset) falls inside a surrogate pair (one character)")
        }
    }
}

extension YText {
    /// The UTF-16 offset of `index` in `string` (for example the text's ``string``).
    public static func utf16Offset(of index: String.Index, in string: String) -> Int {
        string.utf16.distance(from: string.startIndex, to: index)
    }

    /// The UTF-16 offset of the `characterOffset`-th Character of the current text.
    public func utf16Offset(characterOffset: Int) -> Int {
        let s = string
        let i = s.index(s.startIndex, offsetBy: characterOffset, limitedBy: s.endIndex) ?? s.endIndex
        return Self.utf16Offset(of: i, in: s)
    }

    /// The Character offset of UTF-16 offset `utf16Offset` in the current text.
    public func characterOffset(utf16Offset: Int) -> Int {
        let s = string
        let i = s.utf16.index(s.startIndex, offsetBy: utf16Offset, limitedBy: s.endIndex) ?? s.endIndex
        return s.distance(from: s.startIndex, to: i)
    }
}

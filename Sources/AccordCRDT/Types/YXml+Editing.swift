/// Editing XML trees with Yjs's API (`Y.XmlFragment`, `Y.XmlElement`, `Y.XmlText`), as
/// rich-text editor bindings (ProseMirror, Tiptap, BlockNote) store their documents.
///
/// One handle, ``YXml``, serves the three node kinds, as the wire has one type per
/// kind: a fragment or element holds child nodes (a list), an element also holds
/// attributes (its map entries, as in Yjs), and an XML text is a text (``text``
/// gives its ``YText`` editing API: insert, delete, format, delta). The same edits as
/// Yjs's make the same items, so updates are byte-identical with a Yjs peer's.
///
/// ```swift
/// let body = try doc.getXmlFragment("prosemirror")
/// let paragraph = try body.insertElement(0, name: "paragraph")
/// try paragraph.setAttribute("align", "left")
/// let words = try paragraph.insertText(0)
/// try words.text!.insert(0, "Hello")
/// body.toString()      // <paragraph align="left">Hello</paragraph>
/// ```
extension YXml {
    /// Children of a fragment or element; UTF-16 units of an XML text.
    public var length: Int { doc.store.types[Int(type)].length }

    /// An element's tag name (nil for a fragment or text).
    public var nodeName: String? {
        if case .xmlElement(let name)? = kind { return name }
        return nil
    }

    /// An XML text's editing API (insert, delete, format, delta, observe), nil for a
    /// fragment or element.
    public var text: YText? { kind == .xmlText ? YText(doc: doc, type: type) : nil }

    /// Yjs's `toString()`: elements as tags with their attributes sorted by name, text
    /// with its formatting as nested tags.
    public func toString() -> String { xmlString }

    // MARK: Children

    /// Inserts a new, empty element named `name` among the children at `index`.
    /// - Throws: ``ErrorCode/invalidType`` on an XML text or a deleted node;
    ///   ``ErrorCode/indexOutOfBounds``; ``ErrorCode/invalidArgument`` for an empty name.
    @discardableResult
    public func insertElement(_ index: Int, name: String) throws(AccordError) -> YXml {
        guard !name.isEmpty else { throw AccordError(.invalidArgument, "an XML element needs a name") }
        return YXml(doc: doc, type: try insertChild(index, .xmlElement(name: name)))
    }

    /// Inserts a new, empty XML text among the children at `index`; fill it through ``text``.
    /// - Throws: as ``insertElement(_:name:)``.
    @discardableResult
    public func insertText(_ index: Int) throws(AccordError) -> YXml {
        YXml(doc: doc, type: try insertChild(index, .xmlText))
    }

    /// The child node at `index`.
    /// - Throws: ``ErrorCode/invalidType`` on an XML text; ``ErrorCode/indexOutOfBounds``.
    public func child(_ index: Int) throws(AccordError) -> YXml {
        try requireContainer("read children of")
        guard index >= 0, index < length else {
            throw AccordError(.indexOutOfBounds, "child \(index) is outside 0..<\(length)")
        }
        let (ref, _) = doc.store.seek(type: type, index: index)
        guard case .xml(let node)? = doc.values(of: ref).first else {
            throw AccordError(.invalidType, "child \(index) is not an XML node")
        }
        return node
    }

    /// Deletes `count` children from `index`.
    /// - Throws: ``ErrorCode/invalidType`` on an XML text (use ``text``);
    ///   ``ErrorCode/indexOutOfBounds``.
    public func delete(_ index: Int, count: Int = 1) throws(AccordError) {
        try requireContainer("delete children of")
        try doc.listDelete(type: type, at: index, count: count)
    }

    private func insertChild(_ index: Int, _ kind: TypeKind) throws(AccordError) -> Int32 {
        try requireContainer("insert children into")
        let refs = try doc.listInsert(type: type, at: index, [.type(kind)])
        return Int32(doc.store.items[Int(refs[0])].a)
    }

    private func requireContainer(_ action: String) throws(AccordError) {
        switch kind {
        case .xmlFragment?, .xmlElement?: return
        default: throw AccordError(.invalidType, "cannot \(action) an XML text or hook; use its text")
        }
    }

    // MARK: Attributes

    /// Sets an element's attribute (Yjs `setAttribute`).
    /// - Throws: ``ErrorCode/invalidType`` on anything but an element.
    public func setAttribute(_ name: String, _ value: String) throws(AccordError) {
        try setAttribute(name, value: .string(value))
    }

    /// Sets an element's attribute to any JSON value (Yjs accepts any since 13.6).
    public func setAttribute(_ name: String, value: AnyValue) throws(AccordError) {
        try requireElement()
        _ = try doc.mapSet(type: type, key: name, Doc.content(for: value))
    }

    /// Removes an element's attribute (nothing happens when it is absent).
    public func removeAttribute(_ name: String) throws(AccordError) {
        try requireElement()
        try doc.mapDelete(type: type, key: name)
    }

    /// An element's attribute, nil when absent.
    public func getAttribute(_ name: String) -> AnyValue? { attributes[name] }

    private func requireElement() throws(AccordError) {
        guard case .xmlElement? = kind else {
            throw AccordError(.invalidType, "only XML elements have attributes")
        }
    }

    // MARK: Observing

    /// Calls `handler` after each transaction that changed this node's children,
    /// attributes or (for an XML text) text, with the event's delta and keys.
    public func observe(_ handler: @escaping (YEvent) -> Void) -> Subscription {
        doc.addObserver(type: type, handler)
    }

    /// Calls `handler` after each transaction that changed this node or anything in it.
    public func observeDeep(_ handler: @escaping ([YEvent]) -> Void) -> Subscription {
        doc.addDeepObserver(type: type, handler)
    }
}

/// Yjs's names for the three node kinds; one handle, ``YXml``, edits all of them.
public typealias YXmlFragment = YXml
public typealias YXmlElement = YXml
public typealias YXmlText = YXml

public import AccordCRDT
public import AccordStore

/// Follows the open documents of an ``AccordClient`` from inside the client: told when
/// a document's `Doc` comes into use (opened, or replaced by a resync) and when it is
/// closed. Layers built on the client (the records index) use it to keep derived data
/// current. Both calls run isolated to the client, so an observer may read the `Doc`
/// and subscribe to it, as code inside ``AccordClient/withDocument(_:_:)`` may.
public protocol DocumentObserver: AnyObject, Sendable {
    func documentOpened(_ id: DocumentID, doc: Doc, client: isolated AccordClient)
    func documentClosed(_ id: DocumentID, client: isolated AccordClient)
    /// The store made the document's log durable through `sequence` (local edits and
    /// received updates alike), right before ``DocumentChangedEvent`` announces it.
    func documentStored(_ id: DocumentID, through sequence: UInt64, client: isolated AccordClient)
}

extension DocumentObserver {
    public func documentStored(_ id: DocumentID, through sequence: UInt64, client: isolated AccordClient) {}
}

extension AccordClient {
    /// Adds `observer`; it is told at once of every document already open.
    public func addDocumentObserver(_ observer: any DocumentObserver) {
        guard !documentObservers.contains(where: { $0 === observer }) else { return }
        documentObservers.append(observer)
        for (id, document) in documents.sorted(by: { $0.key < $1.key }) {
            observer.documentOpened(id, doc: document.stored.doc, client: self)
        }
    }

    func notifyOpened(_ document: OpenDocument) {
        for observer in documentObservers { observer.documentOpened(document.id, doc: document.stored.doc, client: self) }
    }

    func notifyClosed(_ id: DocumentID) {
        for observer in documentObservers { observer.documentClosed(id, client: self) }
    }

    func notifyStored(_ id: DocumentID, through sequence: UInt64) {
        for observer in documentObservers { observer.documentStored(id, through: sequence, client: self) }
    }
}

public import AccordCRDT
public import AccordStore

extension AccessStore {
    /// Where deleted documents' ids are remembered: key the id, value the deletion time
    /// (ISO 8601 text). Create-on-connect never creates such an id again, so a device
    /// that still has the document open, reconnecting later, cannot bring it back with
    /// itself as the new owner (``DocumentDirectory/createOnConnect(_:owner:)``).
    static let tombstones = StorageCategory("server.deleted")

    /// Records that `id` was deleted at `time`.
    func bury(_ id: DocumentID, at time: String) throws(AccordError) {
        try storage.withAdapter { try $0.commit([.put(Self.tombstones, key: id.rawValue, value: Array(time.utf8))]) }
    }

    /// Whether `id` names a deleted document.
    public func wasDeleted(_ id: DocumentID) throws(AccordError) -> Bool {
        try storage.withAdapter { try $0.read(Self.tombstones, key: id.rawValue) } != nil
    }
}

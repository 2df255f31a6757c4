import AccordCRDT
import AccordStore
import Foundation

/// The client's copy of the server's directory entries, kept in the client's own
/// storage so an app can list and show documents offline and at once.
///
/// Category `client.directory`: key = document id, value = the server's document body
/// (JSON, as REST and directory events send it). Category `client.pending-create`:
/// documents created on this device whose title, tags and metadata the server has not
/// confirmed yet (``PendingCreate``); sent with the document's first frame.
///
/// Every method reads or writes the storage directly (small rows, on the client's
/// queue); nothing is cached in memory, so a wiped store is empty here too.
struct DirectoryCache: Sendable {
    static let entries = StorageCategory("client.directory")
    static let pending = StorageCategory("client.pending-create")

    let storage: SerialStorage

    /// The cached entry of a document; nil when none (or it no longer decodes).
    func entry(_ id: DocumentID) throws(AccordError) -> DocumentInfo? {
        guard let bytes = try storage.withAdapter({ try $0.read(Self.entries, key: id.rawValue) }) else { return nil }
        return try? DocumentInfo(json: bytes)
    }

    /// Every cached entry, by id.
    func all() throws(AccordError) -> [DocumentInfo] {
        let keys = try storage.withAdapter { try $0.keys(in: Self.entries) }
        var result: [DocumentInfo] = []
        for key in keys.sorted() {
            guard let id = DocumentID(rawValue: key), let entry = try entry(id) else { continue }
            result.append(entry)
        }
        return result
    }

    /// Stores the server's body of a document (already decoded by the caller).
    func store(_ json: [UInt8], for id: DocumentID) throws(AccordError) {
        try storage.withAdapter { try $0.commit([.put(Self.entries, key: id.rawValue, value: json)]) }
    }

    /// Forgets a document: its entry and any pending create.
    func remove(_ id: DocumentID) throws(AccordError) {
        try storage.withAdapter {
            try $0.commit([.delete(Self.entries, key: id.rawValue), .delete(Self.pending, key: id.rawValue)])
        }
    }

    // MARK: Pending creates

    func pendingCreate(_ id: DocumentID) throws(AccordError) -> PendingCreate? {
        guard let bytes = try storage.withAdapter({ try $0.read(Self.pending, key: id.rawValue) }) else { return nil }
        return try? JSONDecoder().decode(PendingCreate.self, from: Data(bytes))
    }

    func setPendingCreate(_ create: PendingCreate, for id: DocumentID) throws(AccordError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let bytes = try? encoder.encode(create) else {
            throw AccordError(.storageError, "cannot encode the pending create of \(id)")
        }
        try storage.withAdapter { try $0.commit([.put(Self.pending, key: id.rawValue, value: Array(bytes))]) }
    }

    func clearPendingCreate(_ id: DocumentID) throws(AccordError) {
        try storage.withAdapter { try $0.commit([.delete(Self.pending, key: id.rawValue)]) }
    }

    func pendingCreateIDs() throws(AccordError) -> Set<DocumentID> {
        Set(try storage.withAdapter { try $0.keys(in: Self.pending) }.compactMap { DocumentID(rawValue: $0) })
    }
}

/// What a document created on this device tells the server when it first reaches it
/// (``DirectoryMessage/create(documentID:title:tags:metadata:)``).
struct PendingCreate: Codable, Sendable, Hashable {
    var title: String
    var tags: [String]
    /// Compact JSON text.
    var metadata: String?
}

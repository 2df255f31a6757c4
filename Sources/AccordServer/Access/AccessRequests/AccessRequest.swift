import Foundation
import AccordCRDT
import AccordStore

/// A user's request for a permission on a document, decided by its owner.
///
/// Stored per document (category `server.access-request`, key = document id, value =
/// `{"requests":[...]}` as JSON with sorted keys). A request is `pending` until approved
/// or denied; a pending request not renewed for ``lifetime`` counts as `expired` and can
/// no longer be decided. One pending request per user: asking again updates it.
public struct AccessRequest: Codable, Sendable, Hashable {
    public var id: String
    public var user: String
    public var permission: Role
    public var message: String
    /// `pending`, `approved`, `denied` (stored); `expired` is computed.
    public var status: String
    /// Milliseconds since 1970.
    public var created: Int64
    public var updated: Int64
    public var resolvedBy: String?

    public static let lifetime: Int64 = 30 * 24 * 3600 * 1000
    public static let maxMessageBytes = 2048
    /// Pending requests one document holds at most (a flood is refused).
    public static let maxPending = 1000

    static let category = StorageCategory("server.access-request")

    func status(at now: Int64) -> String {
        status == "pending" && now - updated > Self.lifetime ? "expired" : status
    }
}

struct AccessRequestRow: Codable, Sendable, Hashable {
    var requests: [AccessRequest]
}

extension DocumentDirectory {
    /// The document's access requests, oldest first (none without a row).
    func accessRequests(_ id: DocumentID) throws(AccordError) -> [AccessRequest] {
        guard let bytes = try access.storage.withAdapter({ try $0.read(AccessRequest.category, key: id.rawValue) }) else {
            return []
        }
        guard let row = try? JSONDecoder().decode(AccessRequestRow.self, from: Data(bytes)) else {
            throw AccordError(
                .storageCorrupt, "the access requests of document \(id) are unreadable", details: ["document": id.rawValue])
        }
        return row.requests
    }

    func setAccessRequests(_ requests: [AccessRequest], for id: DocumentID) throws(AccordError) {
        if requests.isEmpty {
            try access.storage.withAdapter { try $0.commit([.delete(AccessRequest.category, key: id.rawValue)]) }
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let bytes = try? encoder.encode(AccessRequestRow(requests: requests)) else {
            throw AccordError(.storageError, "cannot encode the access requests of \(id)")
        }
        try access.storage.withAdapter { try $0.commit([.put(AccessRequest.category, key: id.rawValue, value: Array(bytes))]) }
    }
}

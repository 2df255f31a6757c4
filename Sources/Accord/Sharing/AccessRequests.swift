public import AccordSync
public import Foundation
import AccordCRDT

/// A request for a permission on a document (`docs/sharing.md`, Access requests).
public struct AccessRequestInfo: Sendable, Hashable {
    public var id: String
    public var user: String
    public var permission: DocumentPermission
    public var message: String
    /// `pending`, `approved`, `denied` or `expired` (30 days after the last ask).
    public var status: String
    public var created: Date
    public var updated: Date
    public var resolvedBy: String?

    private struct Wire: Decodable {
        var id: String
        var user: String
        var permission: DocumentPermission
        var message: String
        var status: String
        var created: String
        var updated: String
        var resolvedBy: String?
    }

    static func decode(_ body: [UInt8]) throws(AccordError) -> AccessRequestInfo {
        try make(SharingWire.decode(Wire.self, body))
    }

    static func decodeList(_ body: [UInt8]) throws(AccordError) -> [AccessRequestInfo] {
        struct List: Decodable { var requests: [Wire] }
        var result: [AccessRequestInfo] = []
        for wire in try SharingWire.decode(List.self, body).requests { result.append(try make(wire)) }
        return result
    }

    private static func make(_ wire: Wire) throws(AccordError) -> AccessRequestInfo {
        AccessRequestInfo(
            id: wire.id, user: wire.user, permission: wire.permission, message: wire.message, status: wire.status,
            created: try SharingWire.date(wire.created), updated: try SharingWire.date(wire.updated),
            resolvedBy: wire.resolvedBy)
    }
}

extension Documents {
    /// Asks the document's owner for `permission` (reader or readWrite). Asking again
    /// while a request is pending updates it. A `DOC_ACCESS_DENIED` refusal says whether
    /// the document takes requests in `details["canRequestAccess"]`.
    /// - Throws: `INVALID_ARGUMENT` when the caller has the permission already,
    ///   `ROOT_DOCUMENT_PROTECTED`, `DOCUMENT_NOT_FOUND`.
    @discardableResult
    public func requestAccess(_ id: DocumentID, permission: DocumentPermission, message: String = "")
        async throws(AccordError) -> AccessRequestInfo
    {
        let body = SharingWire.body(["permission": permission.rawValue, "message": message])
        return try AccessRequestInfo.decode(
            try await client.send(ServerCall(.post, ["v1", "documents", id.rawValue, "access-requests"], body: body)))
    }

    /// The document's access requests, oldest first (owner only).
    public func listAccessRequests(_ id: DocumentID) async throws(AccordError) -> [AccessRequestInfo] {
        try AccessRequestInfo.decodeList(
            try await client.send(ServerCall(.get, ["v1", "documents", id.rawValue, "access-requests"])))
    }

    /// Grants the requested permission (owner only); `ACCESS_REQUEST_RESOLVED` (409) for
    /// a request approved, denied or expired already. The requester is notified through
    /// the server's outbox, with `documentUrl` as the link.
    @discardableResult
    public func approveAccessRequest(
        _ id: DocumentID, requestID: String, documentUrl: String? = nil
    ) async throws(AccordError) -> AccessRequestInfo {
        try await decide(id, requestID, "approve", documentUrl)
    }

    /// Denies a request (owner only); `ACCESS_REQUEST_RESOLVED` (409) once decided. The
    /// requester is notified through the server's outbox, with `documentUrl` as the link.
    @discardableResult
    public func denyAccessRequest(
        _ id: DocumentID, requestID: String, documentUrl: String? = nil
    ) async throws(AccordError) -> AccessRequestInfo {
        try await decide(id, requestID, "deny", documentUrl)
    }

    private func decide(
        _ id: DocumentID, _ requestID: String, _ verb: String, _ documentUrl: String?
    ) async throws(AccordError) -> AccessRequestInfo {
        let body = documentUrl.map { SharingWire.body(["documentUrl": $0]) } ?? []
        return try AccessRequestInfo.decode(try await client.send(
            ServerCall(.post, ["v1", "documents", id.rawValue, "access-requests", requestID, verb], body: body)))
    }
}

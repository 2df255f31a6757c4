import AccordCRDT
import AccordNet
import AccordStore
import Foundation

extension DocumentsAPI {
    /// `/v1/documents/{id}/link-access`. `GET` for any role; `PUT` and `DELETE` for the
    /// owner and read-write editors (by effective role, so also everyone when the floor
    /// itself is read-write). Every method answers 200 with
    /// `{"linkAccess": null|"reader"|"read-write", "changedBy": null|user, "changedAt": null|date}`.
    ///
    /// - `GET` reads it; it changes nothing.
    /// - `PUT {"role": "reader"|"read-write"}` sets the floor every signed-in user gets;
    ///   `owner` is refused.
    /// - `DELETE` removes it; removing a floor that is not set succeeds and changes nothing.
    func linkAccess(_ request: HTTPRequest, _ id: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        if request.method == .get {
            try requireDocument(id)
            let row = try directory.access.access(id)
            _ = try Self.requireRole(.reader, of: user, in: row, on: id, groups: directory.access)
            return RESTJSON.response(status: 200, LinkAccessBody(row))
        }
        let floor: Role?
        if request.method == .put {
            let role = try JSONBody(request.body, allowedKeys: ["role"]).role("role")
            guard role != .owner else {
                throw AccordError(.invalidArgument, "link access is reader or read-write", details: ["field": "role"])
            }
            floor = role
        } else {
            floor = nil
        }
        try requireDocument(id)
        var before: DocumentAccess?
        let result = try directory.access.update(id) { row throws(AccordError) in
            before = row
            _ = try Self.requireRole(.readWrite, of: user, in: row, on: id, groups: directory.access)
            if floor != nil { try Self.refuseRoot(row, id, "shared") }
            guard row?.linkAccess != floor else { return }  // unchanged: keep who set it and when
            row?.linkAccess = floor
            row?.linkAccessChangedBy = user
            row?.linkAccessChangedAt = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        }
        if result.changed {
            reportAccess(id, before: before, after: result.access, cause: DirectoryMessage.Cause.linkAccess)
        }
        return RESTJSON.response(status: 200, LinkAccessBody(result.access))
    }
}

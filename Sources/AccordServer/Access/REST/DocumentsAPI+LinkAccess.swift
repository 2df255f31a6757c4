import AccordCRDT
import AccordNet
import AccordStore

extension DocumentsAPI {
    /// `/v1/documents/{id}/link-access`, for the owner and read-write editors (by
    /// effective role, so also everyone when the floor itself is read-write). Both
    /// methods answer 200 with `{"linkAccess": null|"reader"|"read-write"}`.
    ///
    /// - `PUT {"role": "reader"|"read-write"}` sets the floor every signed-in user gets;
    ///   `owner` is refused.
    /// - `DELETE` removes it; removing a floor that is not set succeeds and changes nothing.
    func linkAccess(_ request: HTTPRequest, _ id: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
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
        let result = try directory.access.update(id) { row throws(AccordError) in
            _ = try Self.requireRole(.readWrite, of: user, in: row, on: id)
            row?.linkAccess = floor
        }
        if result.changed { accessChanged(id) }
        return RESTJSON.response(status: 200, LinkAccessBody(linkAccess: result.access?.linkAccess))
    }
}

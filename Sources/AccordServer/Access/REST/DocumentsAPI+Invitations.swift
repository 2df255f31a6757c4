import Foundation
import AccordCRDT
import AccordNet
import AccordStore

extension DocumentsAPI {
    /// `GET /v1/documents/{id}/invitations` (owner only): the pending invitations,
    /// `{"invitations": [{"email", "role", "invitedBy", "invitedAt"}]}`, by address.
    func pendingInvitations(_ id: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        try requireDocument(id)
        let row = try directory.access.access(id)
        _ = try Self.requireRole(.owner, of: user, in: row, on: id, groups: directory.access)
        let invitations = (row?.invitations ?? [:]).sorted { $0.key < $1.key }.map { email, invitation in
            InvitationBody(
                email: email, role: invitation.role, invitedBy: invitation.invitedBy,
                invitedAt: DocumentBody.dateStyle.format(Date(timeIntervalSince1970: Double(invitation.invitedAt) / 1000)))
        }
        return RESTJSON.response(status: 200, ["invitations": invitations])
    }

    /// Queues the `share` notification of a grant made with `sendEmail: true`. A grant
    /// by address names the address, and the user too when one claimed it.
    func queueShare(_ id: DocumentID, to target: PermissionTarget, role: Role, _ notify: Notify, by user: String) throws(AccordError) {
        guard let notifications else { return }
        let now = Self.milliseconds(self.now())
        var notification = ServerNotification(
            type: ServerNotification.share, document: id.rawValue, documentUrl: notify.documentUrl, from: user,
            permission: role, createdAt: now)
        switch target {
        case .user(let member): notification.toUser = member
        case .email(let email):
            notification.toEmail = email.rawValue
            notification.toUser = try directory.access.invitations.user(of: email)
        }
        try notifications.enqueue(notification, now: now)
    }
}

struct InvitationBody: Encodable {
    var email: String
    var role: Role
    var invitedBy: String
    var invitedAt: String
}

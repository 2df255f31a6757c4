import AccordCRDT
import Foundation

/// Something a person should hear about by email (or however the operator's webhook
/// tells them): a document was shared with them, or their access request was decided.
///
/// The server sends no mail itself. It keeps these in a durable outbox
/// (``NotificationOutbox``) and POSTs each, as the JSON of ``payload``, to the
/// `--notify-webhook` URL (``WebhookDelivery``); `docs/server-api.md` documents the body.
public struct ServerNotification: Sendable, Hashable, Codable {
    /// `share`, `access-request-approved` or `access-request-denied`.
    public var type: String
    /// The idempotency key: the same on every delivery attempt, across restarts, so the
    /// receiver can act on each notification once.
    public var id: String
    /// Milliseconds since 1970, UTC.
    public var createdAt: Int64
    public var document: String
    /// The link the sender gave (`documentUrl`), passed on as given.
    public var documentUrl: String?
    /// The user who shared or decided.
    public var from: String
    /// The recipient's user id, when known (a user grant, a claimed address, a requester).
    public var toUser: String?
    /// The recipient's address, for a grant by email.
    public var toEmail: String?
    /// The role granted, or asked for in a denied request.
    public var permission: Role?
    /// The access request decided, for the two request types.
    public var accessRequest: String?

    public static let share = "share"
    public static let accessRequestApproved = "access-request-approved"
    public static let accessRequestDenied = "access-request-denied"

    /// Longest `documentUrl` kept (an over-long one is refused when the call is made).
    public static let maxDocumentURLBytes = 2048

    public init(
        type: String, document: String, documentUrl: String?, from: String, toUser: String? = nil,
        toEmail: String? = nil, permission: Role? = nil, accessRequest: String? = nil, createdAt: Int64
    ) {
        self.type = type
        self.id = UUID().uuidString.lowercased()
        self.createdAt = createdAt
        self.document = document
        self.documentUrl = documentUrl
        self.from = from
        self.toUser = toUser
        self.toEmail = toEmail
        self.permission = permission
        self.accessRequest = accessRequest
    }

    /// The webhook's JSON body (sorted keys; the same bytes on every attempt).
    public var payload: [UInt8] {
        var to = OrderedObject()
        if let toUser { to["user"] = .string(toUser) }
        if let toEmail { to["email"] = .string(toEmail) }
        var body = OrderedObject()
        body["id"] = .string(id)
        body["type"] = .string(type)
        body["createdAt"] = .string(DocumentBody.dateStyle.format(Date(timeIntervalSince1970: Double(createdAt) / 1000)))
        body["document"] = .string(document)
        body["documentUrl"] = documentUrl.map(AnyValue.string) ?? .null
        body["from"] = .string(from)
        body["to"] = .object(to)
        body["permission"] = permission.map { AnyValue.string($0.rawValue) } ?? .null
        if let accessRequest { body["accessRequest"] = .string(accessRequest) }
        return Array(AnyValue.object(body).jsonText.utf8)
    }
}

public import AccordCRDT

/// The per-user and per-connection caps that protect the server from one hostile
/// client: each refusal carries its own code and is counted in `/metrics` as
/// `accord_limit_refusals_total{limit="<metricLabel>"}`.
public enum ServerLimit: String, CaseIterable, Sendable {
    /// Open sync connections of one user (`TOO_MANY_CONNECTIONS`, close 4429).
    case connectionsPerUser = "connections_per_user"
    /// Documents joined by one connection (`TOO_MANY_ROOMS`).
    case roomsPerConnection = "rooms_per_connection"
    /// Documents one user creates per hour, REST and create-on-connect together
    /// (`TOO_MANY_DOCUMENTS`, REST 429).
    case documentsPerUserPerHour = "documents_per_user_per_hour"
    /// Bytes of partially received messages held for one user's connections together
    /// (`QUOTA_EXCEEDED`).
    case partialBytesPerUser = "partial_bytes_per_user"

    public var code: ErrorCode {
        switch self {
        case .connectionsPerUser: .tooManyConnections
        case .roomsPerConnection: .tooManyRooms
        case .documentsPerUserPerHour: .tooManyDocuments
        case .partialBytesPerUser: .quotaExceeded
        }
    }

    /// The `limit` label of `accord_limit_refusals_total`.
    public var metricLabel: String { rawValue }
}

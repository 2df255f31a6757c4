/// What a user may do with a document. Roles are ordered: each one allows everything
/// the roles below it allow (`reader < readWrite < owner`).
///
/// The raw values are the wire strings of the REST API and of stored access rows, so
/// they are never renamed.
public enum Role: String, Sendable, Hashable, Comparable, Codable, CaseIterable {
    /// May read the document and receive its updates.
    case reader = "reader"
    /// May also send updates, and set or remove the document's link access.
    case readWrite = "read-write"
    /// The creator: may also grant and revoke permissions. Exactly one user per document.
    case owner = "owner"

    /// Whether the role may change the document's content.
    public var canWrite: Bool { self >= .readWrite }

    public static func < (a: Role, b: Role) -> Bool { a.rank < b.rank }

    // Declared order is not Comparable by itself; the rank makes the order explicit.
    private var rank: Int {
        switch self {
        case .reader: 0
        case .readWrite: 1
        case .owner: 2
        }
    }
}

/// A change to a document's members for ``Documents/updatePermissions(_:_:)``. The
/// latest grant for a user wins (a lower one replaces a higher one).
public indirect enum PermissionGrant: Sendable, Hashable {
    /// Gives `userID` `permission` (`reader` or `readWrite`; ownership is not granted).
    case user(String, permission: DocumentPermission)
    /// Several grants, applied in order.
    case batch([PermissionGrant])

    /// The single-user grants, flattened in order.
    var userGrants: [(user: String, permission: DocumentPermission)] {
        switch self {
        case .user(let user, let permission): [(user, permission)]
        case .batch(let grants): grants.flatMap(\.userGrants)
        }
    }
}

/// Whose permission ``Documents/removePermission(_:_:)`` removes.
public enum PermissionHolder: Sendable, Hashable {
    case userID(String)
}

/// A change to a document's members for ``Documents/updatePermissions(_:_:sendEmail:documentUrl:)``.
/// The latest grant for a user wins (a lower one replaces a higher one).
public indirect enum PermissionGrant: Sendable, Hashable {
    /// Gives `userID` `permission` (`reader` or `readWrite`; ownership is not granted).
    case user(String, permission: DocumentPermission)
    /// Gives the user with this email address `permission`: the user who signed in with
    /// it, or, while nobody has, a pending invitation that becomes the grant of the first
    /// user whose token carries the address. Addresses are trimmed and lower-cased.
    case email(String, permission: DocumentPermission)
    /// Several grants, applied in order.
    case batch([PermissionGrant])

    /// The single grants, flattened in order, as the request's field (`user` or
    /// `email`), its value and the permission.
    var singleGrants: [(field: String, value: String, permission: DocumentPermission)] {
        switch self {
        case .user(let user, let permission): [("user", user, permission)]
        case .email(let email, let permission): [("email", email, permission)]
        case .batch(let grants): grants.flatMap(\.singleGrants)
        }
    }
}

/// Whose permission ``Documents/removePermission(_:_:)`` removes.
public enum PermissionHolder: Sendable, Hashable {
    case userID(String)
    /// The pending invitation to this address, or the grant of the user who signed in
    /// with it, whichever exists.
    case email(String)
}

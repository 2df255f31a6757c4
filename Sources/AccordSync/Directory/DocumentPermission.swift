/// A role on a document, as the server grants it (`docs/server-api.md`): ordered
/// `reader < readWrite < owner`. The raw values are the wire strings.
public enum DocumentPermission: String, Sendable, Hashable, Codable, Comparable, CaseIterable {
    case reader
    case readWrite = "read-write"
    case owner

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

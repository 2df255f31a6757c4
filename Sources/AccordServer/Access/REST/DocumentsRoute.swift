import AccordNet

/// Which REST call a method and path name.
///
/// Paths arrive URL-decoded, and document ids may contain `/`, so the id is everything
/// after `/v1/documents/`, except that a path ending in `/permissions` or
/// `/link-access` names that sub-resource of the id before it:
///
/// - `/v1/documents/a/b` → document `a/b`
/// - `/v1/documents/a/b/permissions` → the permissions of `a/b`
/// - `/v1/documents/permissions` → document `permissions` (no `/` before the suffix)
///
/// ``DocumentDirectory`` refuses ids ending in those suffixes, so every document it
/// creates is reachable. The id text is validated later (`INVALID_ARGUMENT`).
enum DocumentsRoute: Equatable {
    case create
    case document(String)
    case updateDocument(String)
    case deleteDocument(String)
    case permissions(String)
    case linkAccess(String)
    case owner(String)
    case groups(String)
    case accessRequests(String)
    case accessRequestDecision(String, request: String, approve: Bool)
    case invitations(String)

    /// What a path names, regardless of method; nil when it is not ours.
    enum Resource: Equatable {
        case collection
        case document(String)
        case permissions(String)
        case linkAccess(String)
        case owner(String)
        case groups(String)
        case accessRequests(String)
        case accessRequestDecision(String, request: String, approve: Bool)
        case invitations(String)
    }

    static let accessRequestsSuffix = "/access-requests"
    static let collectionPath = "/v1/documents"
    static let documentPrefix = "/v1/documents/"

    /// The call, or the response for a path that is not ours (404) or a method the
    /// resource does not have (405, with `allow`).
    static func parse(_ method: HTTPMethod, _ path: String) -> Result<DocumentsRoute, Refusal> {
        guard let resource = resource(path) else { return .failure(.notFound) }
        switch (resource, method) {
        case (.collection, .post): return .success(.create)
        case (.document(let id), .get): return .success(.document(id))
        case (.document(let id), .patch): return .success(.updateDocument(id))
        case (.document(let id), .delete): return .success(.deleteDocument(id))
        case (.permissions(let id), .get), (.permissions(let id), .put), (.permissions(let id), .delete):
            return .success(.permissions(id))
        case (.linkAccess(let id), .get), (.linkAccess(let id), .put), (.linkAccess(let id), .delete):
            return .success(.linkAccess(id))
        case (.owner(let id), .put): return .success(.owner(id))
        case (.groups(let id), .put), (.groups(let id), .delete): return .success(.groups(id))
        case (.accessRequests(let id), .get), (.accessRequests(let id), .post): return .success(.accessRequests(id))
        case (.invitations(let id), .get): return .success(.invitations(id))
        case (.accessRequestDecision(let id, let request, let approve), .post):
            return .success(.accessRequestDecision(id, request: request, approve: approve))
        default: return .failure(.methodNotAllowed(allowed(on: resource)))
        }
    }

    /// Compares bytes, not `Character`s: an id may start with a combining mark, which
    /// would merge with the `/` before it into one `Character` and defeat `hasPrefix`.
    static func resource(_ path: String) -> Resource? {
        let bytes = Array(path.utf8)
        if bytes.elementsEqual(collectionPath.utf8) { return .collection }
        guard bytes.starts(with: documentPrefix.utf8) else { return nil }
        let rest = bytes.dropFirst(documentPrefix.utf8.count)
        if let id = rest.droppingSuffix("/permissions") { return .permissions(id) }
        if let id = rest.droppingSuffix("/link-access") { return .linkAccess(id) }
        if let id = rest.droppingSuffix("/owner") { return .owner(id) }
        if let id = rest.droppingSuffix("/groups") { return .groups(id) }
        if let id = rest.droppingSuffix(accessRequestsSuffix) { return .accessRequests(id) }
        if let id = rest.droppingSuffix("/invitations") { return .invitations(id) }
        // {id}/access-requests/{request}/approve|deny; the request id has no '/'.
        for (verb, approve) in [("/approve", true), ("/deny", false)] {
            guard let head = rest.droppingSuffix(verb), let slash = head.utf8.lastIndex(of: UInt8(ascii: "/")) else { continue }
            let request = String(decoding: head.utf8[head.utf8.index(after: slash)...], as: UTF8.self)
            let before = Array(head.utf8[..<slash])[...]
            if !request.isEmpty, let id = before.droppingSuffix(accessRequestsSuffix) {
                return .accessRequestDecision(id, request: request, approve: approve)
            }
        }
        return .document(String(decoding: rest, as: UTF8.self))
    }

    private static func allowed(on resource: Resource) -> [HTTPMethod] {
        switch resource {
        case .collection: [.post]
        case .document: [.get, .patch, .delete]
        case .permissions: [.get, .put, .delete]
        case .linkAccess: [.get, .put, .delete]
        case .owner: [.put]
        case .groups: [.put, .delete]
        case .accessRequests: [.get, .post]
        case .accessRequestDecision: [.post]
        case .invitations: [.get]
        }
    }

    /// A path or method the API does not serve; answered in plain text like the server's
    /// own route misses, as there is no document error to report.
    enum Refusal: Error, Equatable {
        case notFound
        case methodNotAllowed([HTTPMethod])

        var response: HTTPResponse {
            switch self {
            case .notFound:
                HTTPResponse(status: 404, text: "not found\n")
            case .methodNotAllowed(let methods):
                HTTPResponse(
                    status: 405, text: "method not allowed\n",
                    headers: [(name: "allow", value: methods.map(\.rawValue).joined(separator: ", "))])
            }
        }
    }
}

extension ArraySlice<UInt8> {
    /// The text before `suffix` when the bytes end in it. Cutting an ASCII suffix off
    /// valid UTF-8 leaves valid UTF-8.
    fileprivate func droppingSuffix(_ suffix: String) -> String? {
        let tail = Array(suffix.utf8)
        guard count >= tail.count, self.suffix(tail.count).elementsEqual(tail) else { return nil }
        return String(decoding: dropLast(tail.count), as: UTF8.self)
    }
}

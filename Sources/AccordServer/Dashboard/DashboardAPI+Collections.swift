import AccordCRDT
import AccordNet
import AccordStore

extension DashboardAPI {
    static let collectionsPageSize = 50
    static let maxCollectionsPageSize = 200

    /// `?limit=` of the collections and groups lists: 1 to 200, default 50.
    private static func listLimit(_ request: HTTPRequest) throws(AccordError) -> Int {
        guard let raw = request.queryValue("limit") else { return collectionsPageSize }
        guard let number = Int(raw), (1...maxCollectionsPageSize).contains(number) else {
            throw AccordError(.invalidArgument, "limit is an integer in 1...\(maxCollectionsPageSize)",
                              details: ["parameter": "limit", "value": raw])
        }
        return number
    }

    /// `GET /v1/admin/dashboard/groups?after=&limit=`: every group with members or
    /// granted documents, in `type/id` order, a page at a time as the collections are:
    /// `{"groups": [{"group": "type/id", "members": [users], "documents": count}], "next"}`.
    func groupsPage(_ request: HTTPRequest) throws(AccordError) -> AnyValue {
        let limit = try Self.listLimit(request)
        let after = request.queryValue("after").flatMap { $0.isEmpty ? nil : $0 }
        let listed = try directory.access.groups.list(after: after, limit: limit)
        return .object(OrderedObject([
            ("groups", .array(listed.page.map { entry in
                .object(OrderedObject([
                    ("group", .string(entry.group.rawValue)),
                    ("members", .array(entry.members.map(AnyValue.string))),
                    ("documents", .int(Int64(entry.documents))),
                ]))
            })),
            ("next", listed.next.map(AnyValue.string) ?? .null),
        ]))
    }

    /// `GET /v1/admin/dashboard/collections?after=&limit=`: every collection in id
    /// order, `limit` (1 to 200, default 50) at a time after the id `after`:
    /// `{"collections": [{"id", "title", "owner", "members": [{"user", "role"}],
    /// "documents": [ids]}], "next": id or null}`. `next` is the `after` of the next page.
    func collectionsPage(_ request: HTTPRequest) throws(AccordError) -> AnyValue {
        let limit = try Self.listLimit(request)
        let after = request.queryValue("after").flatMap { $0.isEmpty ? nil : $0 }
        let listed = try directory.access.collections.list(after: after, limit: limit)
        return .object(OrderedObject([
            ("collections", .array(listed.page.map { entry in
                .object(OrderedObject([
                    ("id", .string(entry.id)), ("title", .string(entry.collection.title)),
                    ("owner", .string(entry.collection.owner)),
                    ("members", .array(entry.collection.members.sorted { $0.key < $1.key }.map { member in
                        .object(OrderedObject([("user", .string(member.key)), ("role", .string(member.value.rawValue))]))
                    })),
                    ("documents", .array(entry.collection.documents.map(AnyValue.string))),
                ]))
            })),
            ("next", listed.next.map(AnyValue.string) ?? .null),
        ]))
    }
}

import AccordCRDT
import AccordNet
import AccordStore
import Foundation

/// `?q=&sort=&order=&page=&pageSize=` of the documents table, checked.
struct DashboardTableQuery: Sendable, Hashable {
    static let sortKeys = ["id", "title", "owner", "size", "updated", "connections", "pendingAcks"]
    static let maxPageSize = 200

    var search: String
    var sort: String
    var descending: Bool
    var page: Int
    var pageSize: Int

    init(_ request: HTTPRequest) throws(AccordError) {
        search = request.queryValue("q") ?? ""
        sort = request.queryValue("sort") ?? "updated"
        guard Self.sortKeys.contains(sort) else {
            throw AccordError(.invalidArgument, "sort is one of \(Self.sortKeys.joined(separator: ", "))",
                              details: ["parameter": "sort", "value": sort])
        }
        switch request.queryValue("order") ?? (sort == "updated" ? "desc" : "asc") {
        case "asc": descending = false
        case "desc": descending = true
        case let other:
            throw AccordError(.invalidArgument, "order is asc or desc", details: ["parameter": "order", "value": other])
        }
        page = try Self.integer(request, "page", default: 0, range: 0...1_000_000)
        pageSize = try Self.integer(request, "pageSize", default: 50, range: 1...Self.maxPageSize)
    }

    private static func integer(_ request: HTTPRequest, _ name: String, default value: Int, range: ClosedRange<Int>) throws(AccordError) -> Int {
        guard let raw = request.queryValue(name) else { return value }
        guard let number = Int(raw), range.contains(number) else {
            throw AccordError(.invalidArgument, "\(name) is an integer in \(range.lowerBound)...\(range.upperBound)",
                              details: ["parameter": name, "value": raw])
        }
        return number
    }
}

extension DashboardAPI {
    struct TableRow {
        var metadata: DocumentMetadata
        var owner: String
        var load: SyncHub.RoomLoad
    }

    /// One page of every stored document, filtered by `q` (in id, title or owner, any
    /// case) and sorted; `total` counts the filtered rows.
    func documentsTable(_ query: DashboardTableQuery) throws(AccordError) -> AnyValue {
        let loads = hub.roomLoads()
        let needle = query.search.lowercased()
        var rows: [TableRow] = []
        for metadata in try directory.documents.documents() where metadata.isResident {
            let owner = try directory.access.access(metadata.id)?.owner ?? ""
            if !needle.isEmpty,
               !metadata.id.rawValue.lowercased().contains(needle), !metadata.title.lowercased().contains(needle),
               !owner.lowercased().contains(needle) { continue }
            rows.append(TableRow(metadata: metadata, owner: owner, load: loads[metadata.id] ?? .init(connections: 0, pendingAcks: 0)))
        }
        rows.sort { a, b in
            let ordered: Bool
            switch query.sort {
            case "title": ordered = a.metadata.title == b.metadata.title ? a.metadata.id < b.metadata.id : a.metadata.title < b.metadata.title
            case "owner": ordered = a.owner == b.owner ? a.metadata.id < b.metadata.id : a.owner < b.owner
            case "size": ordered = a.metadata.size == b.metadata.size ? a.metadata.id < b.metadata.id : a.metadata.size < b.metadata.size
            case "updated":
                ordered = a.metadata.updated == b.metadata.updated ? a.metadata.id < b.metadata.id : a.metadata.updated < b.metadata.updated
            case "connections":
                ordered = a.load.connections == b.load.connections ? a.metadata.id < b.metadata.id : a.load.connections < b.load.connections
            case "pendingAcks":
                ordered = a.load.pendingAcks == b.load.pendingAcks ? a.metadata.id < b.metadata.id : a.load.pendingAcks < b.load.pendingAcks
            default: ordered = a.metadata.id < b.metadata.id
            }
            return query.descending ? !ordered : ordered
        }
        let start = min(rows.count, query.page * query.pageSize)
        let page = rows[start..<min(rows.count, start + query.pageSize)]
        return .object(OrderedObject([
            ("total", .int(Int64(rows.count))), ("page", .int(Int64(query.page))), ("pageSize", .int(Int64(query.pageSize))),
            ("rows", .array(page.map { row in
                .object(OrderedObject([
                    ("id", .string(row.metadata.id.rawValue)), ("title", .string(row.metadata.title)),
                    ("owner", .string(row.owner)), ("size", .int(Int64(row.metadata.size))),
                    ("updated", .int(Self.milliseconds(row.metadata.updated))),
                    ("connections", .int(Int64(row.load.connections))), ("pendingAcks", .int(Int64(row.load.pendingAcks))),
                ]))
            })),
        ]))
    }

    /// Everything the document page shows, read now.
    func documentPage(_ id: DocumentID) throws(AccordError) -> AnyValue {
        let metadata = try directory.documents.metadata(id)
        let view = hub.roomView(id) { revision in contents.wouldEncode(id, key: .room(revision)) }
        let key: DashboardContentCache.Key = view.map { .room($0.revision) }
            ?? .stored(size: metadata.size, updated: Self.milliseconds(metadata.updated))
        let content = try contents.content(id, key: key) { () throws(AccordError) -> AnyValue in
            // The view's state when it has one; else the document now (at least as new as `key`).
            if let state = view?.state { return try ContentTree.json(ofUpdate: state) }
            return try ContentTree.json(ofUpdate: try state(of: id))
        }
        let access = try directory.access.access(id)
        let blobs = try blobStore?.blobs(referencedBy: id) ?? []
        func awareness(_ entries: [(clientID: ClientID, state: AnyValue)]) -> AnyValue {
            .array(entries.map { .object(OrderedObject([("clientID", .int(Int64(bitPattern: $0.clientID))), ("state", $0.state)])) })
        }
        return .object(OrderedObject([
            ("id", .string(id.rawValue)), ("title", .string(metadata.title)),
            ("tags", .array(metadata.tags.map(AnyValue.string))),
            ("owner", access.map { .string($0.owner) } ?? .null),
            ("size", .int(Int64(metadata.size))),
            ("created", .int(Self.milliseconds(metadata.created))), ("updated", .int(Self.milliseconds(metadata.updated))),
            ("loaded", .bool(view != nil)), ("pendingAcks", .int(Int64(view?.pendingAcks ?? 0))),
            ("content", content.content),
            // Not current: a tree encoded less than a quarter second ago, of an older state;
            // a refetch after `contentRetryMilliseconds` gets the state then.
            ("contentCurrent", .bool(content.current)),
            ("contentRetryMilliseconds", content.retryInMilliseconds.map { .int(Int64($0)) } ?? .null),
            ("clients", .array((view?.clients ?? []).map { client in
                .object(OrderedObject([
                    ("connection", .int(Int64(bitPattern: client.connection))),
                    ("user", client.user.map(AnyValue.string) ?? .null),
                    ("awareness", awareness(client.awareness)),
                ]))
            })),
            ("unownedAwareness", awareness(view?.unownedAwareness ?? [])),
            ("access", access.map(Self.accessJSON) ?? .null),
            ("blobs", .array(blobs.map { blob in
                .object(OrderedObject([
                    ("hash", .string(blob.hash.hex)), ("size", .int(blob.size)), ("contentType", .string(blob.contentType)),
                    ("created", .int(Self.milliseconds(blob.created))),
                ]))
            })),
            ("recentUpdates", .array(monitor.recentUpdates(id).map { update in
                .object(OrderedObject([("time", .int(Int64(update.time))), ("bytes", .int(Int64(update.bytes)))]))
            })),
        ]))
    }

    static func accessJSON(_ access: DocumentAccess) -> AnyValue {
        .object(OrderedObject([
            ("owner", .string(access.owner)),
            ("members", .array(access.members.sorted { $0.key < $1.key }.map { member in
                .object(OrderedObject([("user", .string(member.key)), ("role", .string(member.value.rawValue))]))
            })),
            ("groups", .array((access.groups ?? [:]).sorted { $0.key < $1.key }.map { group in
                .object(OrderedObject([("group", .string(group.key)), ("role", .string(group.value.rawValue))]))
            })),
            ("invitations", .array((access.invitations ?? [:]).sorted { $0.key < $1.key }.map { invitation in
                .object(OrderedObject([("email", .string(invitation.key)), ("role", .string(invitation.value.role.rawValue))]))
            })),
            ("linkAccess", access.linkAccess.map { .string($0.rawValue) } ?? .null),
        ]))
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
}

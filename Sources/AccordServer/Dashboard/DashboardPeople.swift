import AccordCRDT
import AccordStore
import Foundation

/// The dashboard's people: users connected now (from the hub) and users whose last
/// connection closed since the server started, newest first, with the documents they
/// had open. In memory only, at most ``capacity`` users remembered.
final class DashboardPeople: @unchecked Sendable {
    static let capacity = 1000

    struct Seen {
        var lastSeen: UInt64
        var documents: Set<DocumentID>
    }

    private let lock = NSLock()
    private var seen: [String: Seen] = [:]
    private let now: @Sendable () -> UInt64

    init(now: @escaping @Sendable () -> UInt64) { self.now = now }

    /// A connection of `user` closed (called on the hub's queue).
    func disconnected(_ user: String, documents: Set<DocumentID>, at time: UInt64) {
        lock.withLock {
            seen[user, default: Seen(lastSeen: time, documents: [])].lastSeen = time
            seen[user]?.documents.formUnion(documents)
            if seen.count > Self.capacity, let oldest = seen.min(by: { $0.value.lastSeen < $1.value.lastSeen })?.key {
                seen[oldest] = nil
            }
        }
    }

    /// `{"people": [{"user", "connected", "lastSeen", "connections": [{"id", "documents"}], "documents", "groups",
    /// "collections"}]}`.
    func json(
        connections: [SyncHub.ConnectionSummary], groups: GroupStore, collections: CollectionStore
    ) throws(AccordError) -> AnyValue {
        let remembered = lock.withLock { seen }
        let memberships = try collections.memberships()
        let now = now()
        var byUser: [String: [SyncHub.ConnectionSummary]] = [:]
        for connection in connections { byUser[connection.user, default: []].append(connection) }
        let users = Set(byUser.keys).union(remembered.keys)
        var people: [(lastSeen: UInt64, user: String, json: AnyValue)] = []
        for user in users {
            let live = byUser[user] ?? []
            let lastSeen = live.isEmpty ? remembered[user]?.lastSeen ?? 0 : now
            var documents = remembered[user]?.documents ?? []
            for connection in live { documents.formUnion(connection.documents) }
            let memberOf = try groups.groups(of: user).map(\.rawValue).sorted()
            people.append((lastSeen, user, .object(OrderedObject([
                ("user", .string(user)), ("connected", .bool(!live.isEmpty)), ("lastSeen", .int(Int64(lastSeen))),
                ("connections", .array(live.map { connection in
                    .object(OrderedObject([
                        ("id", .int(Int64(bitPattern: connection.connection))),
                        ("documents", .array(connection.documents.map { .string($0.rawValue) })),
                    ]))
                })),
                ("documents", .array(documents.sorted().map { .string($0.rawValue) })),
                ("groups", .array(memberOf.map(AnyValue.string))),
                ("collections", .array((memberships[user] ?? []).map(AnyValue.string))),
            ]))))
        }
        people.sort { $0.lastSeen == $1.lastSeen ? $0.user < $1.user : $0.lastSeen > $1.lastSeen }
        return .object(OrderedObject([("people", .array(people.map(\.json)))]))
    }
}

import Foundation
import AccordCRDT
import AccordNet
import AccordStore

extension SyncHub {
    /// A directory change made elsewhere (the REST API): tell the users concerned on
    /// every `/v1/sync` connection they have, in the order changes are reported.
    func directoryChanged(_ change: DirectoryChange) {
        queue.async { [self] in
            guard !isStopped else { return }
            publish(change)
        }
    }

    /// Sends each user's ``DirectoryNotice`` as connection-wide frames: the permission
    /// change first (if any), then the entry. On the hub's queue.
    ///
    /// Users without a `/v1/sync` connection are skipped before anything is read, so a
    /// change nobody is connected for costs a dictionary lookup per user.
    func publish(_ change: DirectoryChange) {
        guard !eventConnections.isEmpty else { return }
        guard let id = change.documentID else {
            if case .membership(let group, let added, let removed) = change {
                publishMembership(group, added: added, removed: removed)
            }
            return
        }
        var current: DocumentAccess?
        if case .entry = change { current = try? directory.access.access(id) }
        let groups = directory.access.groups
        var granted: Set<String> = []
        switch change {
        case .access(_, let before, let after, _):
            granted = Set((before.groups ?? [:]).keys).union((after.groups ?? [:]).keys)
        case .deleted(_, let before): granted = Set((before.groups ?? [:]).keys)
        case .entry: granted = Set((current?.groups ?? [:]).keys)
        case .created, .membership, .roles: break
        }
        var groupMembers: Set<String> = []
        for raw in granted {
            if let group = GroupKey(rawValue: raw) { groupMembers.formUnion((try? groups.members(of: group)) ?? []) }
        }
        let collections = directory.access.collections
        groupMembers.formUnion((try? collections.users(on: id)) ?? [])
        let notices = DirectoryNotice.plan(
            change, current: current, joined: joinedUsers(id), groupMembers: groupMembers,
            groupsOf: { (try? groups.groups(of: $0)) ?? [] }, collectionRole: { try? collections.role(of: $0, on: id) }
        ).filter { eventConnections[$0.user] != nil }
        send(notices, about: id)
    }

    /// Users joined or left `group`: for each document granted to it, each of them whose
    /// role changed hears of it (cause `group`).
    private func publishMembership(_ group: GroupKey, added: Set<String>, removed: Set<String>) {
        let concerned = added.union(removed).filter { eventConnections[$0] != nil }
        guard !concerned.isEmpty, let documents = try? directory.access.groups.documents(of: group) else { return }
        for id in documents {
            guard let row = try? directory.access.access(id) else { continue }
            var notices: [DirectoryNotice] = []
            for user in concerned.sorted() {
                let now = (try? directory.access.groups.groups(of: user)) ?? []
                let then = added.contains(user) ? now.subtracting([group]) : now.union([group])
                let old = row.role(of: user, inGroups: then), new = row.role(of: user, inGroups: now)
                guard old != new else { continue }
                notices.append(DirectoryNotice(
                    user: user, permission: (old, new, DirectoryMessage.Cause.group),
                    entry: new.map(DirectoryNotice.Entry.updated) ?? .deleted))
            }
            send(notices, about: id)
        }
    }

    private func send(_ notices: [DirectoryNotice], about id: DocumentID) {
        guard !notices.isEmpty else { return }
        var entries = EntryRenderer(directory: directory, id: id)
        for notice in notices {
            var frames: [ProtocolFrame] = []
            if let permission = notice.permission,
               let frame = try? AccordMessage.directory(.permissionChanged(
                   documentID: id.rawValue, permission: permission.after?.rawValue,
                   previous: permission.before?.rawValue, cause: permission.cause)).frame()
            {
                frames.append(frame)
            }
            let entry: DirectoryMessage?
            switch notice.entry {
            case .deleted:
                entry = .entryChanged(documentID: id.rawValue, action: DirectoryMessage.Action.deleted, entry: nil)
            case .updated(let role):
                // A document deleted meanwhile has no entry to send; its delete follows.
                entry = entries.json(for: role).map {
                    .entryChanged(documentID: id.rawValue, action: DirectoryMessage.Action.updated, entry: $0)
                }
            }
            if let entry, let frame = try? AccordMessage.directory(entry).frame() { frames.append(frame) }
            for connectionID in (eventConnections[notice.user] ?? []).sorted() {
                guard let connection = connections[connectionID], !connection.session.isClosed else { continue }
                for frame in frames {
                    send(connection.session.endpoint.encode(frame, document: nil), on: connection.socket)
                }
            }
        }
    }

    /// The directory entry a device's first frame about a document carries, if it is a
    /// `create` (``DirectoryMessage/create(documentID:title:tags:metadata:)``).
    static func createMessage(_ frame: ProtocolFrame) -> DirectoryMessage? {
        guard frame.type == AccordMessage.frameType,
              case .directory(let message)? = try? AccordMessage.decode(frame: frame),
              case .create = message
        else { return nil }
        return message
    }

    /// The users with a connection in the document's room.
    private func joinedUsers(_ id: DocumentID) -> Set<String> {
        guard let room = rooms[id]?.room else { return [] }
        return Set(room.connections.compactMap { connections[$0]?.session.user })
    }
}

/// The directory entry of one document as JSON text (the REST API's document body),
/// read once and rendered once per role.
private struct EntryRenderer {
    let directory: DocumentDirectory
    let id: DocumentID
    private var loaded = false
    private var stored: (metadata: DocumentMetadata, details: DocumentDetails, owner: String)?
    private var rendered: [Role: String] = [:]

    init(directory: DocumentDirectory, id: DocumentID) {
        self.directory = directory
        self.id = id
    }

    /// Nil when the document is gone (or unreadable): there is no entry to send.
    mutating func json(for role: Role) -> String? {
        if let text = rendered[role] { return text }
        if !loaded {
            loaded = true
            do {
                stored = (try directory.documents.metadata(id), try directory.details(id),
                          try directory.access.access(id)?.owner ?? "")
            } catch {
                stored = nil
            }
        }
        guard let stored,
              let text = RESTJSON.text(DocumentBody(stored.metadata, permission: role, owner: stored.owner, details: stored.details))
        else { return nil }
        rendered[role] = text
        return text
    }
}

/// Accord messages about the server's directory (sharing, titles, deletion), subtypes
/// 20–29 of outer type 100 (layout in `docs/protocol.md`), carried as
/// ``AccordMessage/directory(_:)``.
///
/// The two events are **connection-wide** (envelope document id `""` on `/v1/sync`) and
/// name their document in the body: they concern the user rather than a room the
/// connection joined, so they reach every `/v1/sync` connection of the user, also for
/// documents it never opened (a new share). `create` is about one document and travels
/// under it, as the frame that joins it.
public enum DirectoryMessage: Hashable, Sendable {
    /// 20, server → client: the user's effective permission on a document changed.
    /// `permission` nil = no access any more; `previous` nil = had none. `cause` says
    /// what changed it (``Cause``), an open set of short words.
    case permissionChanged(documentID: String, permission: String?, previous: String?, cause: String)
    /// 21, server → client: a document's directory entry changed for the user.
    /// `action` is ``Action/updated`` with `entry` (the REST API's document JSON as this
    /// user sees it, an object) or ``Action/deleted`` without (deleted, or the user's
    /// access is gone).
    case entryChanged(documentID: String, action: String, entry: String?)
    /// 22, client → server, under the document: create it, if it does not exist yet,
    /// with this directory entry. Sent before the first frame of a document created on
    /// the device; for an existing document the server ignores it (the join still
    /// follows the role rules).
    case create(documentID: String, title: String, tags: [String], metadata: String?)

    /// The `action` values of ``entryChanged(documentID:action:entry:)``.
    public enum Action {
        public static let updated = "updated"
        public static let deleted = "deleted"
    }

    /// The `cause` values the server sends today (clients must accept others).
    public enum Cause {
        public static let grant = "grant"
        public static let revoke = "revoke"
        public static let linkAccess = "link-access"
        public static let transfer = "transfer"
        public static let delete = "delete"
        public static let create = "create"
        /// The user joined or left a group granted the document, or a group's grant changed.
        public static let group = "group"
        /// A collection holding the document gained or lost it, or the user's role on the collection changed.
        public static let collection = "collection"
    }

    /// The wire strings of permissions (the server's roles).
    public static let permissions: Set<String> = ["reader", "read-write", "owner"]

    public static let maxCauseBytes = 64
    /// The directory's own limits (`docs/server-api.md`), so a `create` the server
    /// would refuse fails where it is made.
    public static let maxTitleBytes = 1024
    public static let maxTags = 64
    public static let maxTagBytes = 256
    public static let maxMetadataBytes = 4096

    enum Subtype: UInt64 {
        case permissionChanged = 20, entryChanged = 21, create = 22
    }

    static func isDirectorySubtype(_ raw: UInt64) -> Bool { Subtype(rawValue: raw) != nil }

    var subtype: Subtype {
        switch self {
        case .permissionChanged: .permissionChanged
        case .entryChanged: .entryChanged
        case .create: .create
        }
    }

    /// The document the message is about, wherever it travels.
    public var subjectDocumentID: String {
        switch self {
        case .permissionChanged(let id, _, _, _), .entryChanged(let id, _, _), .create(let id, _, _, _): id
        }
    }

    /// The document of the `/v1/sync` envelope: nil (connection-wide) for the events.
    var envelopeDocumentID: String? {
        if case .create(let id, _, _, _) = self { return id }
        return nil
    }

    // MARK: Bytes

    func write(to w: inout ByteWriter) {
        w.writeVarUInt(subtype.rawValue)
        switch self {
        case .permissionChanged(let id, let permission, let previous, let cause):
            w.writeVarString(id)
            AccordMessage.writeOptional(permission, to: &w)
            AccordMessage.writeOptional(previous, to: &w)
            w.writeVarString(cause)
        case .entryChanged(let id, let action, let entry):
            w.writeVarString(id)
            w.writeVarString(action)
            AccordMessage.writeOptional(entry, to: &w)
        case .create(let id, let title, let tags, let metadata):
            w.writeVarString(id)
            w.writeVarString(title)
            w.writeVarUInt(UInt64(tags.count))
            for tag in tags { w.writeVarString(tag) }
            AccordMessage.writeOptional(metadata, to: &w)
        }
    }

    /// Reads the fields after the subtype; the caller checks the end and validates.
    static func read(subtype raw: UInt64, from r: inout ByteReader) throws(AccordError) -> DirectoryMessage {
        switch Subtype(rawValue: raw) {
        case .permissionChanged?:
            return .permissionChanged(
                documentID: try r.readVarString(), permission: try AccordMessage.readOptional(from: &r),
                previous: try AccordMessage.readOptional(from: &r), cause: try r.readVarString())
        case .entryChanged?:
            return .entryChanged(
                documentID: try r.readVarString(), action: try r.readVarString(),
                entry: try AccordMessage.readOptional(from: &r))
        case .create?:
            let id = try r.readVarString()
            let title = try r.readVarString()
            // Bounded before anything is allocated: at most maxTags, each at least one byte.
            let count = try r.readVarUInt(max: UInt64(maxTags), "tag count")
            var tags: [String] = []
            for _ in 0..<count { tags.append(try r.readVarString()) }
            return .create(documentID: id, title: title, tags: tags, metadata: try AccordMessage.readOptional(from: &r))
        case nil:
            throw AccordError(.malformedMessage, "unknown directory message subtype \(raw)")
        }
    }

    // MARK: Rules

    /// Thrown as ``ErrorCode/invalidArgument``; decoders relabel it.
    func validate() throws(AccordError) {
        try WireDocumentID.validate(subjectDocumentID)
        switch self {
        case .permissionChanged(_, let permission, let previous, let cause):
            for value in [permission, previous] {
                if let value, !Self.permissions.contains(value) {
                    throw AccordError(.invalidArgument, "'\(value.prefix(32))' is not a permission (reader, read-write, owner)")
                }
            }
            guard permission != previous else {
                throw AccordError(.invalidArgument, "a permission change must change the permission")
            }
            guard !cause.isEmpty, cause.utf8.count <= Self.maxCauseBytes,
                  !cause.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw AccordError(.invalidArgument, "a cause has 1 to \(Self.maxCauseBytes) bytes without control characters")
            }
        case .entryChanged(_, let action, let entry):
            switch (action, entry) {
            case (Action.updated, let entry?):
                guard case .object? = try? AnyValue(jsonText: entry) else {
                    throw AccordError(.invalidArgument, "an updated directory entry must be a JSON object")
                }
            case (Action.deleted, nil):
                break
            case (Action.updated, nil), (Action.deleted, _?):
                throw AccordError(.invalidArgument, "'updated' carries an entry and 'deleted' none")
            default:
                throw AccordError(.invalidArgument, "'\(action.prefix(32))' is not a directory action (updated, deleted)")
            }
        case .create(_, let title, let tags, let metadata):
            guard title.utf8.count <= Self.maxTitleBytes else {
                throw AccordError(.invalidArgument, "a title has at most \(Self.maxTitleBytes) bytes")
            }
            guard tags.count <= Self.maxTags, tags.allSatisfy({ !$0.isEmpty && $0.utf8.count <= Self.maxTagBytes }) else {
                throw AccordError(.invalidArgument, "at most \(Self.maxTags) tags of 1 to \(Self.maxTagBytes) bytes")
            }
            if let metadata {
                guard metadata.utf8.count <= Self.maxMetadataBytes else {
                    throw AccordError(.invalidArgument, "metadata has at most \(Self.maxMetadataBytes) bytes of JSON")
                }
                let value = try? AnyValue(jsonText: metadata)
                if value == nil || value == .undefined {
                    throw AccordError(.invalidArgument, "metadata is not JSON")
                }
            }
        }
    }
}

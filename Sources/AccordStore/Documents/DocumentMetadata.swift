import Foundation
import AccordCRDT

/// What a store knows about a document besides its content.
public struct DocumentMetadata: Sendable, Hashable {
    public let id: DocumentID
    public var title: String
    public var tags: [String]
    public internal(set) var created: Date
    /// The last time an update was made durable (or the metadata was edited).
    public internal(set) var updated: Date
    /// A local-only document is never synced; its updates are not kept for sending.
    public var localOnly: Bool
    /// The content format: `yjs-update-v1` (a Yjs update v1 snapshot plus a log of updates).
    public internal(set) var format: String
    /// Bytes stored for the content: the snapshot plus the log.
    public var size: Int { snapshotBytes + logBytes }
    /// Set by the sync engine when it last completed a sync of this document.
    public var lastSyncTime: Date?
    /// False after ``DocumentStore/evict(_:force:)``: the metadata stays, the content is gone.
    public internal(set) var isResident: Bool

    // Bookkeeping (public for inspection; the store maintains it).

    /// The highest sequence number given to an update of this document.
    public internal(set) var lastSequence: UInt64
    /// Local updates with a sequence up to this one were acknowledged by the server.
    public internal(set) var acknowledgedSequence: UInt64
    /// The highest sequence of a local update (of a document that is not local-only);
    /// local updates wait for the server while this is above ``acknowledgedSequence``.
    public internal(set) var lastLocalSequence: UInt64
    /// The snapshot holds every update with a sequence up to this one.
    public internal(set) var snapshotSequence: UInt64
    public internal(set) var snapshotBytes: Int
    public internal(set) var logBytes: Int
    public internal(set) var logCount: Int

    /// Random at creation: tells a document from an earlier one deleted under the same id,
    /// so a compaction that started before a delete never writes into its successor.
    var incarnation: UInt64

    static let currentFormat = "yjs-update-v1"

    init(id: DocumentID, title: String, tags: [String], localOnly: Bool, now: Date) {
        self.id = id
        self.title = title
        self.tags = tags
        self.created = now
        self.updated = now
        self.localOnly = localOnly
        self.format = Self.currentFormat
        self.lastSyncTime = nil
        self.isResident = true
        self.lastSequence = 0
        self.acknowledgedSequence = 0
        self.lastLocalSequence = 0
        self.snapshotSequence = 0
        self.snapshotBytes = 0
        self.logBytes = 0
        self.logCount = 0
        self.incarnation = UInt64.random(in: 1...UInt64.max)
    }
}

// MARK: - Stored form

extension DocumentMetadata: Codable {
    private enum CodingKeys: String, CodingKey {
        case version, id, title, tags, created, updated, localOnly, format, lastSyncTime, isResident
        case lastSequence, acknowledgedSequence, snapshotSequence, snapshotBytes, logBytes, logCount, incarnation
        case lastLocalSequence
    }

    /// Bumped when the stored form changes incompatibly; older stores are migrated on read.
    static let recordVersion = 1

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let version = try c.decode(Int.self, forKey: .version)
        guard version == Self.recordVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: c, debugDescription: "unknown metadata version \(version)")
        }
        // The rule the id was stored under, not today's (see DocumentID(stored:)).
        id = try DocumentID(stored: c.decode(String.self, forKey: .id))
        title = try c.decode(String.self, forKey: .title)
        tags = try c.decode([String].self, forKey: .tags)
        created = Date(timeIntervalSince1970: try c.decode(Double.self, forKey: .created))
        updated = Date(timeIntervalSince1970: try c.decode(Double.self, forKey: .updated))
        localOnly = try c.decode(Bool.self, forKey: .localOnly)
        format = try c.decode(String.self, forKey: .format)
        lastSyncTime = try c.decodeIfPresent(Double.self, forKey: .lastSyncTime).map(Date.init(timeIntervalSince1970:))
        isResident = try c.decode(Bool.self, forKey: .isResident)
        lastSequence = try c.decode(UInt64.self, forKey: .lastSequence)
        acknowledgedSequence = try c.decode(UInt64.self, forKey: .acknowledgedSequence)
        lastLocalSequence = try c.decode(UInt64.self, forKey: .lastLocalSequence)
        snapshotSequence = try c.decode(UInt64.self, forKey: .snapshotSequence)
        snapshotBytes = try c.decode(Int.self, forKey: .snapshotBytes)
        logBytes = try c.decode(Int.self, forKey: .logBytes)
        logCount = try c.decode(Int.self, forKey: .logCount)
        incarnation = try c.decode(UInt64.self, forKey: .incarnation)
        guard snapshotBytes >= 0, logBytes >= 0, logCount >= 0, snapshotSequence <= lastSequence else {
            throw DecodingError.dataCorruptedError(
                forKey: .logCount, in: c, debugDescription: "inconsistent bookkeeping")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.recordVersion, forKey: .version)
        try c.encode(id, forKey: .id)
        try c.encode(title, forKey: .title)
        try c.encode(tags, forKey: .tags)
        try c.encode(created.timeIntervalSince1970, forKey: .created)
        try c.encode(updated.timeIntervalSince1970, forKey: .updated)
        try c.encode(localOnly, forKey: .localOnly)
        try c.encode(format, forKey: .format)
        try c.encodeIfPresent(lastSyncTime?.timeIntervalSince1970, forKey: .lastSyncTime)
        try c.encode(isResident, forKey: .isResident)
        try c.encode(lastSequence, forKey: .lastSequence)
        try c.encode(acknowledgedSequence, forKey: .acknowledgedSequence)
        try c.encode(lastLocalSequence, forKey: .lastLocalSequence)
        try c.encode(snapshotSequence, forKey: .snapshotSequence)
        try c.encode(snapshotBytes, forKey: .snapshotBytes)
        try c.encode(logBytes, forKey: .logBytes)
        try c.encode(logCount, forKey: .logCount)
        try c.encode(incarnation, forKey: .incarnation)
    }

    func encoded() throws(AccordError) -> [UInt8] {
        do {
            return Array(try JSONEncoder().encode(self))
        } catch {
            throw AccordError(.storageError, "cannot encode metadata of \(id): \(error)")
        }
    }

    static func decode(_ bytes: [UInt8], id: DocumentID) throws(AccordError) -> DocumentMetadata {
        do {
            let metadata = try JSONDecoder().decode(DocumentMetadata.self, from: Data(bytes))
            guard metadata.id == id else {
                throw AccordError(.storageCorrupt, "metadata stored under \(id) names \(metadata.id)")
            }
            return metadata
        } catch let error as AccordError {
            throw AccordError(error.code, error.message, details: ["document": id.rawValue])
        } catch {
            throw AccordError(
                .storageCorrupt, "metadata of document \(id) is unreadable: \(error)",
                details: ["document": id.rawValue])
        }
    }
}

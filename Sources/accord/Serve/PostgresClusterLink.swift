import AccordCRDT
import AccordPostgres
import AccordServer
import AccordStore
import Foundation

/// `accord serve --cluster`: the node hears the others' appends through PostgreSQL
/// LISTEN on the schema's channel (``PostgresListener``), where every shared-log append
/// notifies at its commit (``PostgresLogNotice``). A (re)connected listener becomes
/// `.resync`, so rooms catch up from the log after anything missed. Access changes go
/// out as `acl <writer> <document>` (hex) on the same channel, from a connection of
/// their own, and group membership changes as `grp <writer> <group>`.
final class PostgresClusterLink: ClusterLink, @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `listener` and `announcer` are used only
    // under `lock`.
    private let url: String
    private let schema: String
    private let writer: [UInt8]
    private let lock = NSLock()
    private var listener: PostgresListener?
    private let announcer: PostgresConnection
    private let awarenessQueue = DispatchQueue(label: "accord.cluster.awareness")

    init(url: String, schema: String, writer: [UInt8]) throws(AccordError) {
        self.url = url
        self.schema = schema
        self.writer = writer
        announcer = try PostgresConnection(url: url)
    }

    func announceAccessChanged(_ id: DocumentID) {
        announce("acl " + Self.hex(writer) + " " + Self.hex(Array(id.rawValue.utf8)))
    }

    func announceGroupChanged(_ group: GroupKey) {
        announce("grp " + Self.hex(writer) + " " + Self.hex(Array(group.rawValue.utf8)))
    }

    func announceCollectionChanged(_ id: String) {
        announce("col " + Self.hex(writer) + " " + Self.hex(Array(id.utf8)))
    }

    /// Sends a notice the other nodes must act on (not ephemeral): waits for it, and
    /// tries once more on a fresh connection.
    private func announce(_ payload: String) {
        lock.locked {
            // One retry on a fresh connection (the first may have been cut since).
            for _ in 0..<2 {
                do throws(AccordError) {
                    _ = try announcer.query("SELECT pg_notify($1, $2)", [.text(schema), .text(payload)])
                    return
                } catch {
                    Output.error("accord serve: cannot announce a change to the cluster: \(error.message)")
                    _ = try? announcer.reconnect()
                }
            }
        }
    }

    /// Awareness goes out on a queue of its own, so the sync queue never waits for it.
    /// A NOTIFY payload must stay under 8000 bytes: larger updates are not sent (their
    /// clients' state reaches other nodes' clients at the next smaller renewal).
    func publishAwareness(_ id: DocumentID, _ update: [UInt8]) {
        publish("awr " + Self.hex(writer) + " " + Self.hex(Array(id.rawValue.utf8)) + " " + Self.hex(update))
    }

    func publishBroadcast(_ id: DocumentID, topic: String, payload: String, sender: String) {
        publish(["bcs", Self.hex(writer), Self.hex(Array(id.rawValue.utf8)), Self.hex(Array(topic.utf8)),
                 Self.hex(Array(payload.utf8)), Self.hex(Array(sender.utf8))].joined(separator: " "))
    }

    /// `chc <node> <key>:<count>,…` (keys in hex), in as many notices as it takes to
    /// stay under NOTIFY's payload limit.
    func publishChannelCounts(_ counts: [ChannelCount]) {
        let prefix = "chc " + Self.hex(writer) + " "
        var fields: [String] = []
        var length = prefix.utf8.count
        for count in counts {
            let field = Self.hex(Array(count.key.rawValue.utf8)) + ":" + String(count.sessions)
            if !fields.isEmpty, length + field.utf8.count + 1 > 7800 {
                publish(prefix + fields.joined(separator: ","))
                fields = []
                length = prefix.utf8.count
            }
            fields.append(field)
            length += field.utf8.count + 1
        }
        if !fields.isEmpty { publish(prefix + fields.joined(separator: ",")) }
    }

    /// `chb <node> <key> <topic> <payload> <sender>` (hex). A broadcast too large for
    /// NOTIFY (payloads over about 3.9 KB) stays on this node.
    func publishChannelBroadcast(_ message: ChannelMessage) {
        guard case .broadcast(let key, let topic, let payload, let sender) = message else { return }
        publish(["chb", Self.hex(writer), Self.hex(Array(key.rawValue.utf8)), Self.hex(Array(topic.utf8)),
                 Self.hex(Array(payload.utf8)), Self.hex(Array((sender ?? "").utf8))].joined(separator: " "))
    }

    /// A `chc` payload from another node: the node and its counts.
    private static func channelCountsNotice(_ payload: String, ignoring writer: [UInt8]) -> (String, [ChannelCount])? {
        let fields = payload.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0] == "chc", let from = PostgresLogNotice.hex(fields[1]), from != writer else { return nil }
        var counts: [ChannelCount] = []
        for field in fields[2].split(separator: ",") {
            let parts = field.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let raw = PostgresLogNotice.hex(parts[0]), let sessions = UInt64(parts[1]),
                let key = ChannelKey(rawValue: String(decoding: raw, as: UTF8.self))
            else { return nil }
            counts.append(ChannelCount(key: key, sessions: sessions))
        }
        return (String(fields[1]), counts)
    }

    /// A `chb` payload from another node: the broadcast, its sender set.
    private static func channelBroadcastNotice(_ payload: String, ignoring writer: [UInt8]) -> ChannelMessage? {
        let fields = payload.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0] == "chb", let from = PostgresLogNotice.hex(fields[1]), from != writer,
            let raw = PostgresLogNotice.hex(fields[2]), let topic = PostgresLogNotice.hex(fields[3]),
            let body = PostgresLogNotice.hex(fields[4]), let sender = PostgresLogNotice.hex(fields[5]),
            let key = ChannelKey(rawValue: String(decoding: raw, as: UTF8.self))
        else { return nil }
        return .broadcast(
            key: key, topic: String(decoding: topic, as: UTF8.self), payload: String(decoding: body, as: UTF8.self),
            sender: sender.isEmpty ? nil : String(decoding: sender, as: UTF8.self))
    }

    /// Sends an ephemeral notice, unless it is too large for NOTIFY.
    private func publish(_ payload: String) {
        guard payload.utf8.count < 7900 else { return }
        awarenessQueue.async { [self] in
            lock.locked {
                do throws(AccordError) {
                    _ = try announcer.query("SELECT pg_notify($1, $2)", [.text(schema), .text(payload)])
                } catch {
                    _ = try? announcer.reconnect()
                }
            }
        }
    }

    /// A `bcs` payload from another node: document, topic, payload and sender.
    private static func broadcastNotice(
        _ payload: String, ignoring writer: [UInt8]
    ) -> (id: DocumentID, topic: String, payload: String, sender: String)? {
        let fields = payload.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0] == "bcs", let from = PostgresLogNotice.hex(fields[1]), from != writer,
            let key = PostgresLogNotice.hex(fields[2]), let topic = PostgresLogNotice.hex(fields[3]),
            let body = PostgresLogNotice.hex(fields[4]), let sender = PostgresLogNotice.hex(fields[5]),
            let id = try? DocumentID(stored: String(decoding: key, as: UTF8.self))
        else { return nil }
        return (id, String(decoding: topic, as: UTF8.self), String(decoding: body, as: UTF8.self),
                String(decoding: sender, as: UTF8.self))
    }

    /// An `awr` payload from another node: the document and the awareness update.
    private static func awarenessNotice(_ payload: String, ignoring writer: [UInt8]) -> (DocumentID, [UInt8])? {
        let fields = payload.split(separator: " ")
        guard fields.count == 4, fields[0] == "awr", let from = PostgresLogNotice.hex(fields[1]), from != writer,
            let key = PostgresLogNotice.hex(fields[2]), let update = PostgresLogNotice.hex(fields[3]),
            let id = try? DocumentID(stored: String(decoding: key, as: UTF8.self))
        else { return nil }
        return (id, update)
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// An `acl` payload from another node: the document whose access changed.
    private static func accessNotice(_ payload: String, ignoring writer: [UInt8]) -> DocumentID? {
        let fields = payload.split(separator: " ")
        guard fields.count == 3, fields[0] == "acl", let from = PostgresLogNotice.hex(fields[1]), from != writer,
            let key = PostgresLogNotice.hex(fields[2])
        else { return nil }
        return try? DocumentID(stored: String(decoding: key, as: UTF8.self))
    }

    /// A `grp` payload from another node: the group whose members changed.
    private static func groupNotice(_ payload: String, ignoring writer: [UInt8]) -> GroupKey? {
        let fields = payload.split(separator: " ")
        guard fields.count == 3, fields[0] == "grp", let from = PostgresLogNotice.hex(fields[1]), from != writer,
            let key = PostgresLogNotice.hex(fields[2])
        else { return nil }
        return GroupKey(rawValue: String(decoding: key, as: UTF8.self))
    }

    /// A `col` payload from another node: the collection it changed.
    private static func collectionNotice(_ payload: String, ignoring writer: [UInt8]) -> String? {
        let fields = payload.split(separator: " ")
        guard fields.count == 3, fields[0] == "col", let from = PostgresLogNotice.hex(fields[1]), from != writer,
            let key = PostgresLogNotice.hex(fields[2])
        else { return nil }
        return String(decoding: key, as: UTF8.self)
    }

    func start(_ handler: @escaping @Sendable (ClusterEvent) -> Void) {
        let writer = self.writer
        let started = try? PostgresListener(url: url, channel: schema) { event in
            switch event {
            case .listening:
                handler(.resync)
            case .lost(let reason):
                Output.error("accord serve: cluster feed lost (\(reason)); reconnecting")
            case .notification(let payload):
                if let (id, update) = Self.awarenessNotice(payload, ignoring: writer) {
                    handler(.awareness(id, update))
                    return
                }
                if let notice = Self.broadcastNotice(payload, ignoring: writer) {
                    handler(.broadcast(notice.id, topic: notice.topic, payload: notice.payload, sender: notice.sender))
                    return
                }
                if let (node, counts) = Self.channelCountsNotice(payload, ignoring: writer) {
                    handler(.channelCounts(node: node, counts))
                    return
                }
                if let message = Self.channelBroadcastNotice(payload, ignoring: writer) {
                    handler(.channelBroadcast(message))
                    return
                }
                if let group = Self.groupNotice(payload, ignoring: writer) {
                    handler(.groupChanged(group))
                    return
                }
                if let collection = Self.collectionNotice(payload, ignoring: writer) {
                    handler(.collectionChanged(collection))
                    return
                }
                if let id = Self.accessNotice(payload, ignoring: writer) {
                    handler(.accessChanged(id))
                    return
                }
                guard let notice = PostgresLogNotice(payload: payload),
                    notice.category == DocumentStore.sharedLogCategory,
                    let id = try? DocumentID(stored: notice.key)
                else { return }
                let updates = notice.values.flatMap { values -> [[UInt8]]? in
                    let decoded = values.map(DocumentStore.sharedLogUpdate)
                    return decoded.allSatisfy { $0 != nil } ? decoded.map { $0! } : nil
                }
                handler(.appended(
                    id, first: notice.first, last: notice.last, fromThisNode: notice.writer == writer, updates: updates))
            }
        }
        lock.locked { listener = started }
    }

    func stop() {
        let current = lock.locked { () -> PostgresListener? in
            defer { listener = nil }
            return listener
        }
        current?.stop()
    }

    var isConnected: Bool { lock.locked { listener }?.isListening ?? false }
}

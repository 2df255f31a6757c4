import Foundation
import AccordCRDT
import AccordStore

/// Which user an email address belongs to, and which documents hold a pending
/// invitation for an address nobody has signed in with yet.
///
/// - category `server.email-user`, key = normalized address, value = the user id
///   (UTF-8) of the first user whose token carried it. Written once: the first user wins.
/// - category `server.invitation`, key = normalized address, value =
///   `{"documents":[id,...]}` (sorted): where to look when that address signs in. The
///   invitations themselves (role, who, when) live in the documents' access rows; an
///   entry whose row no longer names the address (cancelled, document deleted) is skipped.
///
/// The store's lock (``withLock(_:)``) is taken before an access row's lock, never
/// after, by everything that creates, cancels or redeems invitations, so a sign-in and
/// a grant to the same address cannot interleave: an invitation is either redeemed or
/// made into a member grant at once, never left behind.
public final class InvitationStore: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `settled` is only touched under `cacheLock`.
    static let userCategory = StorageCategory("server.email-user")
    static let indexCategory = StorageCategory("server.invitation")
    /// Addresses remembered as settled at most; past it the memory starts over (a
    /// forgotten address costs one row read on its next request).
    static let maxSettled = 100_000

    let storage: SerialStorage
    /// Set in a cluster: ``withLock(_:)`` also holds the cluster-wide invitations lock,
    /// so two nodes never interleave a claim or an index row's read-modify-write.
    private let clusterLock: (any SharedDocumentLock)?
    private let lock = NSLock()
    private let cacheLock = NSLock()
    /// Addresses claimed by a user and without pending invitations: a request with
    /// one of them needs no storage read. Only grows while invitations to it are made
    /// into member grants directly (never pending again).
    private var settled: [String: String] = [:]

    init(storage: SerialStorage, clusterLock: (any SharedDocumentLock)? = nil) {
        self.storage = storage
        self.clusterLock = clusterLock
    }

    private struct IndexRow: Codable { var documents: [String] }

    /// Runs `body` holding the invitations lock (see the type's comment).
    func withLock<T>(_ body: () throws(AccordError) -> T) throws(AccordError) -> T {
        try clusterLock?.lock(named: "invitations")
        defer { clusterLock?.unlock(named: "invitations") }
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    func isSettled(_ email: EmailAddress) -> Bool {
        cacheLock.lock()
        defer { cacheLock.unlock() }
        return settled[email.rawValue] != nil
    }

    func markSettled(_ email: EmailAddress, user: String) {
        cacheLock.lock()
        defer { cacheLock.unlock() }
        if settled.count >= Self.maxSettled { settled.removeAll() }
        settled[email.rawValue] = user
    }

    /// The user who claimed `email`, or nil while nobody has.
    public func user(of email: EmailAddress) throws(AccordError) -> String? {
        try storage.withAdapter { try $0.read(Self.userCategory, key: email.rawValue) }
            .map { String(decoding: $0, as: UTF8.self) }
    }

    func claim(_ email: EmailAddress, for user: String) throws(AccordError) {
        try storage.withAdapter {
            try $0.commit([.put(Self.userCategory, key: email.rawValue, value: Array(user.utf8))])
        }
    }

    /// The documents that may hold a pending invitation for `email`, sorted.
    func documents(invitedAs email: EmailAddress) throws(AccordError) -> [DocumentID] {
        guard let bytes = try storage.withAdapter({ try $0.read(Self.indexCategory, key: email.rawValue) }) else {
            return []
        }
        guard let row = try? JSONDecoder().decode(IndexRow.self, from: Data(bytes)) else {
            throw AccordError(
                .storageCorrupt, "the invitation index of \(email) is unreadable", details: ["email": email.rawValue])
        }
        return row.documents.compactMap { try? DocumentID(validating: $0) }
    }

    /// Replaces the index row of `email` (removes it when empty).
    func setDocuments(_ ids: [DocumentID], invitedAs email: EmailAddress) throws(AccordError) {
        let sorted = Set(ids.map(\.rawValue)).sorted()
        let operation: StorageOperation
        if sorted.isEmpty {
            operation = .delete(Self.indexCategory, key: email.rawValue)
        } else {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let bytes = try? encoder.encode(IndexRow(documents: sorted)) else {
                throw AccordError(.storageError, "cannot encode the invitation index of \(email)")
            }
            operation = .put(Self.indexCategory, key: email.rawValue, value: Array(bytes))
        }
        try storage.withAdapter { try $0.commit([operation]) }
    }
}

public import AccordCRDT
public import AccordSync
import Foundation

extension AccordClient {
    /// Registers `models` with this client, creating its records index on first use,
    /// and projects the open documents for them at once (documents opened later are
    /// projected as they open). Registering the same schema again is a no-op; a
    /// changed schema rebuilds that model's index. A failed registration writes
    /// nothing and can be retried.
    /// - Throws: `RESERVED_FIELD_NAME`, `UNIQUE_ON_STRINGSET`, `INVALID_SCHEMA` naming
    ///   the model and field; the index's storage errors.
    @discardableResult
    public func registerModels(_ models: [ModelSchema]) throws(AccordError) -> ClientRecords {
        let records = try ClientRecordsRegistry.records(for: self, creating: true)!
        addDocumentObserver(records)
        try records.register(models, client: self)
        return records
    }

    /// The records of this client; nil until ``registerModels(_:)`` was called.
    public nonisolated var records: ClientRecords? {
        try? ClientRecordsRegistry.records(for: self, creating: false)
    }
}

/// Which ``ClientRecords`` belongs to which client. A client cannot hold it itself (it
/// lives in a lower module), so this table does, weakly: a client that goes away
/// takes its records with it.
enum ClientRecordsRegistry {
    private final class Entry: @unchecked Sendable {
        // Written once at creation.
        weak var client: AccordClient?
        let records: ClientRecords
        init(client: AccordClient, records: ClientRecords) {
            self.client = client
            self.records = records
        }
    }

    nonisolated(unsafe) private static var entries: [ObjectIdentifier: Entry] = [:]
    private static let lock = NSLock()

    static func records(for client: AccordClient, creating: Bool) throws(AccordError) -> ClientRecords? {
        lock.lock()
        defer { lock.unlock() }
        entries = entries.filter { $0.value.client != nil }
        let key = ObjectIdentifier(client)
        if let entry = entries[key], entry.client === client { return entry.records }
        guard creating else { return nil }
        let records = try ClientRecords(store: client.store, client: client)
        entries[key] = Entry(client: client, records: records)
        return records
    }
}

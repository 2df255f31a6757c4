import AccordCRDT
import AccordDatabase
import AccordServer
import AccordStore
import AccordSync
import AccordTesting
import Foundation
import Testing

/// Two databases syncing through a real server (the `AccordServer` that `accord serve`
/// runs, on a port of 127.0.0.1): edits made offline merge key by key.
@Suite(.timeLimit(.minutes(1))) struct SyncMergeTests {
    let folder: TemporaryDirectory
    let tokens: TokenAuthority
    let server: AccordServer

    init() throws {
        folder = try TemporaryDirectory(prefix: "db-sync")
        tokens = try TokenAuthority(secret: Array("accord-database-sync-secret-0123456789".utf8))
        var configuration = AccordServer.Configuration()
        configuration.port = 0
        server = try AccordServer(
            configuration: configuration, documents: try DocumentStore(path: folder.file("server.sqlite")), tokens: tokens)
    }

    /// A database in its own folder and a client over its store, syncing it.
    func device(_ name: String) async throws -> (Database, AccordClient) {
        try FileManager.default.createDirectory(atPath: folder.file(name), withIntermediateDirectories: true)
        let database = try Database(name: "app", directory: folder.file(name))
        let token = tokens.mint(subject: "alice", ttl: 3600)
        let client = AccordClient(serverURL: "ws://127.0.0.1:\(server.port)", store: database.store) { token }
        await client.start()
        try await client.sync(database: database)
        return (database, client)
    }

    func json(_ database: Database, _ id: String) -> String? {
        (try? database.defaultCollection().document(id: id))?.toJSON()
    }

    func waitUntil(_ condition: () async throws -> Bool) async throws {
        for _ in 0..<500 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("timed out")
    }

    @Test func offlineEditsOfDifferentNestedKeysBothSurviveAndTheSameKeyConverges() async throws {
        let (phone, phoneClient) = try await device("phone")
        let (laptop, laptopClient) = try await device("laptop")
        let heard = try laptop.defaultCollection().changes()
        let people = try phone.defaultCollection()
        try people.save(document: try MutableDocument(
            id: "p", json: #"{"name":"Ann","address":{"city":"Paris","zip":"75001"},"n":0}"#))
        try people.save(document: try MutableDocument(id: "q", json: #"{"x":1}"#))
        try await waitUntil { json(laptop, "p") != nil && json(laptop, "q") != nil }
        // The laptop's listener heard of the remote change, after it was readable.
        var changes = heard.makeAsyncIterator()
        #expect(await changes.next()?.documentIDs.contains("p") == true)

        await phoneClient.goOffline()
        await laptopClient.goOffline()
        let onPhone = try #require(try people.document(id: "p")).toMutable()
        onPhone.dictionary(forKey: "address")?.setString("Lyon", forKey: "city")
        onPhone.setInt(1, forKey: "n")
        try people.save(document: onPhone)
        try people.delete(document: try #require(try people.document(id: "q")))
        let laptopPeople = try laptop.defaultCollection()
        let onLaptop = try #require(try laptopPeople.document(id: "p")).toMutable()
        onLaptop.dictionary(forKey: "address")?.setString("69001", forKey: "zip")
        onLaptop.setString("Bob", forKey: "name").setInt(2, forKey: "n")
        try laptopPeople.save(document: onLaptop)
        let q = try #require(try laptopPeople.document(id: "q")).toMutable()
        try laptopPeople.save(document: q.setInt(2, forKey: "x"))

        await phoneClient.goOnline()
        await laptopClient.goOnline()
        try await waitUntil {
            let a = json(phone, "p"), b = json(laptop, "p")
            return a == b && a?.contains("Lyon") == true && a?.contains("69001") == true && json(laptop, "q") == nil
        }
        let merged = try #require(try people.document(id: "p"))
        #expect(merged.dictionary(forKey: "address")?.string(forKey: "city") == "Lyon")
        #expect(merged.dictionary(forKey: "address")?.string(forKey: "zip") == "69001")
        #expect(merged.string(forKey: "name") == "Bob")
        #expect([1, 2].contains(merged.int(forKey: "n")))  // one value, the same on both
        #expect(json(phone, "p") == json(laptop, "p"))
        // Delete versus edit: the delete wins on both.
        #expect(json(phone, "q") == nil && json(laptop, "q") == nil)
        #expect(try people.count == 1 && laptopPeople.count == 1)

        await phoneClient.stop()
        await laptopClient.stop()
        try phone.close()
        try laptop.close()
        try await server.stop()
    }

    /// A remote change is a change by another writer: a save based on what was read
    /// before it arrived fails with `.failOnConflict`, and succeeds once re-read.
    /// A collection created after `sync(database:)` syncs without calling it again.
    @Test func collectionsCreatedAfterSyncStartedSyncToo() async throws {
        let (phone, phoneClient) = try await device("phone-late")
        let (laptop, laptopClient) = try await device("laptop-late")
        let phoneNotes = try phone.createCollection(name: "notes", scope: "work")
        let laptopNotes = try laptop.createCollection(name: "notes", scope: "work")
        try phoneNotes.save(document: try MutableDocument(id: "n1", json: #"{"text":"from the phone"}"#))
        try laptopNotes.save(document: try MutableDocument(id: "n2", json: #"{"text":"from the laptop"}"#))
        try await waitUntil {
            let n1 = try laptopNotes.document(id: "n1")
            let n2 = try phoneNotes.document(id: "n2")
            return n1 != nil && n2 != nil
        }
        #expect(try laptopNotes.document(id: "n1")?.string(forKey: "text") == "from the phone")
        #expect(try phoneNotes.document(id: "n2")?.string(forKey: "text") == "from the laptop")
        await phoneClient.stop()
        await laptopClient.stop()
        try phone.close()
        try laptop.close()
    }

    @Test func failOnConflictRefusesASaveBasedOnAVersionARemoteChangeReplaced() async throws {
        let (phone, phoneClient) = try await device("phone")
        let (laptop, laptopClient) = try await device("laptop")
        let people = try phone.defaultCollection()
        try people.save(document: MutableDocument(id: "r").setInt(1, forKey: "n"))
        try await waitUntil { json(laptop, "r") != nil }
        let stale = try #require(try people.document(id: "r")).toMutable()
        let remote = try #require(try laptop.defaultCollection().document(id: "r")).toMutable()
        try laptop.defaultCollection().save(document: remote.setInt(2, forKey: "n"))
        try await waitUntil { try people.document(id: "r")?.int(forKey: "n") == 2 }
        #expect(try !people.save(document: stale.setInt(3, forKey: "n"), concurrencyControl: .failOnConflict))
        let fresh = try #require(try people.document(id: "r")).toMutable()
        #expect(try people.save(document: fresh.setInt(3, forKey: "n"), concurrencyControl: .failOnConflict))
        try await waitUntil { json(laptop, "r") == #"{"n":3}"# }

        // A purge (and so an expiry) is local: the laptop keeps the document, and a later
        // change from it brings it back here.
        try people.purge(id: "r")
        try people.save(document: MutableDocument(id: "marker"))
        try await waitUntil { json(laptop, "marker") != nil }
        #expect(json(laptop, "r") == #"{"n":3}"#)
        #expect(json(phone, "r") == nil)
        let again = try #require(try laptop.defaultCollection().document(id: "r")).toMutable()
        try laptop.defaultCollection().save(document: again.setInt(4, forKey: "n"))
        try await waitUntil { json(phone, "r") == #"{"n":4}"# }

        await phoneClient.stop()
        await laptopClient.stop()
        try phone.close()
        try laptop.close()
        try await server.stop()
    }
}

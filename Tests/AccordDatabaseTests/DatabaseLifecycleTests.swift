import AccordCRDT
import AccordDatabase
import AccordTesting
import Foundation
import Testing

@Suite struct DatabaseLifecycleTests {
    @Test func createsOpensClosesAndDeletes() throws {
        let folder = try TemporaryDirectory(prefix: "db")
        #expect(!Database.exists(name: "app", directory: folder.path))
        let database = try Database(name: "app", directory: folder.path)
        #expect(Database.exists(name: "app", directory: folder.path))
        try database.defaultCollection().save(document: MutableDocument(id: "a").setInt(1, forKey: "n"))
        try database.close()
        try database.close()  // idempotent
        let closed = #expect(throws: AccordError.self) { try database.defaultCollection() }
        #expect(closed?.code == .databaseClosed)

        let reopened = try Database(name: "app", directory: folder.path)
        #expect(try reopened.defaultCollection().document(id: "a")?.int(forKey: "n") == 1)
        try reopened.delete()
        #expect(!Database.exists(name: "app", directory: folder.path))
    }

    @Test func aSecondDatabaseOnTheSameFilesIsRefused() throws {
        let folder = try TemporaryDirectory(prefix: "db")
        let first = try Database(name: "app", directory: folder.path)
        let refused = #expect(throws: AccordError.self) { try Database(name: "app", directory: folder.path) }
        #expect(refused?.code == .databaseLocked)
        let notDeleted = #expect(throws: AccordError.self) { try Database.delete(name: "app", directory: folder.path) }
        #expect(notDeleted?.code == .databaseLocked)
        try first.close()
        let second = try Database(name: "app", directory: folder.path)
        try second.close()
        try Database.delete(name: "app", directory: folder.path)
        #expect(!Database.exists(name: "app", directory: folder.path))
    }

    /// The lock is the kernel's, so another process holding it (here `flock(1)`, as an
    /// app extension would through its own Database) keeps this one out.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/flock")))
    func anotherProcessHoldingTheLockKeepsTheDatabaseOut() throws {
        let folder = try TemporaryDirectory(prefix: "db")
        try Database(name: "app", directory: folder.path).close()
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        let lockFile = folder.file("app.accorddb/lock")
        // `cat` holds the lock until its input closes.
        holder.arguments = ["-x", lockFile, "cat"]
        let input = Pipe()
        holder.standardInput = input
        try holder.run()
        defer {
            try? input.fileHandleForWriting.close()
            holder.waitUntilExit()
        }
        var refused: AccordError?
        for _ in 0..<200 {  // until the child holds the lock
            do {
                try Database(name: "app", directory: folder.path).close()
                Thread.sleep(forTimeInterval: 0.01)
            } catch {
                refused = error
                break
            }
        }
        #expect(refused?.code == .databaseLocked)
    }

    @Test(arguments: ["", "_app", "%app", "a b", "a/b", "é", String(repeating: "a", count: 252)])
    func invalidDatabaseNamesAreRefused(name: String) throws {
        let folder = try TemporaryDirectory(prefix: "db")
        let error = #expect(throws: AccordError.self) { try Database(name: name, directory: folder.path) }
        #expect(error?.code == .invalidName)
    }
}

@Suite struct CollectionTests {
    @Test func createListFindAndDeleteCollections() throws {
        let folder = try TemporaryDirectory(prefix: "db")
        let database = try Database(name: "app", directory: folder.path)
        defer { try? database.close() }
        #expect(try database.collections().map(\.name) == ["_default"])
        let tasks = try database.createCollection(name: "tasks")
        try database.createCollection(name: "notes-2%", scope: "work")
        #expect(tasks.scope.name == "_default")
        #expect(try database.collection(name: "tasks")?.name == "tasks")
        #expect(try database.collection(name: "missing") == nil)
        #expect(try database.collections().map(\.name) == ["_default", "tasks"])
        #expect(try database.collections(scope: "work").map(\.name) == ["notes-2%"])

        // Ids are unique per collection, not per database.
        try tasks.save(document: MutableDocument(id: "x").setString("task", forKey: "kind"))
        try database.defaultCollection().save(document: MutableDocument(id: "x").setString("default", forKey: "kind"))
        #expect(try tasks.document(id: "x")?.string(forKey: "kind") == "task")
        #expect(try database.defaultCollection().document(id: "x")?.string(forKey: "kind") == "default")

        try database.deleteCollection(name: "tasks")
        #expect(try database.collection(name: "tasks") == nil)
        let gone = #expect(throws: AccordError.self) { try tasks.document(id: "x") }
        #expect(gone?.code == .collectionNotFound)
        let recreated = try database.createCollection(name: "tasks")
        #expect(try recreated.document(id: "x") == nil)
        let defaultDelete = #expect(throws: AccordError.self) { try database.deleteCollection(name: "_default") }
        #expect(defaultDelete?.code == .invalidArgument)
    }

    @Test func collectionsSurviveReopening() throws {
        let folder = try TemporaryDirectory(prefix: "db")
        var database = try Database(name: "app", directory: folder.path)
        try database.createCollection(name: "a", scope: "s").save(document: MutableDocument(id: "1"))
        try database.close()
        database = try Database(name: "app", directory: folder.path)
        defer { try? database.close() }
        #expect(try database.collections(scope: "s").map(\.name) == ["a"])
        #expect(try database.collection(name: "a", scope: "s")?.count == 1)
    }

    @Test(arguments: [
        "", "_tasks", "%tasks", "tasks!", "a.b", "a b", "ü", String(repeating: "t", count: 252),
    ])
    func invalidNamesAreRefused(name: String) throws {
        let folder = try TemporaryDirectory(prefix: "db")
        let database = try Database(name: "app", directory: folder.path)
        defer { try? database.close() }
        let asCollection = #expect(throws: AccordError.self) { try database.createCollection(name: name) }
        #expect(asCollection?.code == .invalidName)
        let asScope = #expect(throws: AccordError.self) { try database.createCollection(name: "ok", scope: name) }
        #expect(asScope?.code == .invalidName)
    }

    @Test(arguments: ["a", "A-z_0%", "t_", String(repeating: "t", count: 251)])
    func validNamesAreAccepted(name: String) throws {
        let folder = try TemporaryDirectory(prefix: "db")
        let database = try Database(name: "app", directory: folder.path)
        defer { try? database.close() }
        try database.createCollection(name: name, scope: name).save(document: MutableDocument(id: "d"))
        #expect(try database.collection(name: name, scope: name)?.document(id: "d") != nil)
    }
}

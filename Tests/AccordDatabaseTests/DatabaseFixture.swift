import AccordDatabase
import AccordTesting

/// A database in a fresh temporary folder, closed and removed when released.
final class DatabaseFixture {
    let folder: TemporaryDirectory
    let database: Database

    init(name: String = "app") throws {
        folder = try TemporaryDirectory(prefix: "db")
        database = try Database(name: name, directory: folder.path)
    }

    var collection: Collection { get throws { try database.defaultCollection() } }

    /// Closes this database and opens the same files again.
    func reopened() throws -> Database {
        try database.close()
        return try Database(name: database.name, directory: folder.path)
    }

    deinit { try? database.close() }
}

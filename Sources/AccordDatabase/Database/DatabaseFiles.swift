import AccordCRDT
import Foundation

/// Where a database lives: the folder `<directory>/<name>.accorddb` holding the store
/// (`store.sqlite`, the same kind of file an `AccordClient` syncs, with its blobs in
/// `store.sqlite.blobs`), the document table derived from it (`documents.sqlite`), and
/// the lock file.
struct DatabaseFiles {
    let folder: String

    init(name: String, directory: String) {
        folder = (directory as NSString).appendingPathComponent("\(name).accorddb")
    }

    var store: String { folder + "/store.sqlite" }
    var documents: String { folder + "/documents.sqlite" }
    var lock: String { folder + "/lock" }

    var exists: Bool { FileManager.default.fileExists(atPath: store) }

    func create() throws(AccordError) {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw AccordError(.storageError, "cannot create \(folder): \(error)", details: ["path": folder])
        }
    }

    func remove() throws(AccordError) {
        guard FileManager.default.fileExists(atPath: folder) else { return }
        do {
            try FileManager.default.removeItem(atPath: folder)
        } catch {
            throw AccordError(.storageError, "cannot delete \(folder): \(error)", details: ["path": folder])
        }
    }
}

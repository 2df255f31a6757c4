import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordTesting

/// Files a store creates are readable by their owner only (0600), whatever the umask:
/// SQLite gives `-wal` and `-shm` the mode of the database file, so the database file
/// itself must be created 0600.
@Suite struct FileModeTests {
    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func theDatabaseItsWALAndSharedMemoryAre0600() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/accord.sqlite"
        let store = try DocumentStore(path: path)
        try store.create("doc")
        let doc = Doc(clientID: 1)
        try doc.getText("t").insert(0, "private")
        _ = try store.append(doc.encodeStateAsUpdate(), to: "doc")
        try store.flush()
        for file in [path, path + "-wal", path + "-shm"] {
            #expect(FileManager.default.fileExists(atPath: file), "\(file)")
            let mode = try Self.mode(file)
            #expect(mode == 0o600, "\(file): \(String(mode, radix: 8))")
        }
        try store.close()
    }

    @Test func blobFilesAndTheirDirectoryAreOwnerOnly() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/accord.sqlite"
        let storage = try SerialStorage(path: path)
        let blobs = try BlobStore(storage: storage)
        // Large enough to live in a content file of its own.
        let info = try blobs.put([UInt8](repeating: 7, count: 3 << 20))
        let blobDirectory = path + ".blobs"
        #expect(try Self.mode(blobDirectory) == 0o700)
        for name in try FileManager.default.subpathsOfDirectory(atPath: blobDirectory) {
            let file = blobDirectory + "/" + name
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory)
            #expect(try Self.mode(file) == (isDirectory.boolValue ? 0o700 : 0o600), "\(name)")
        }
        #expect(info.size == 3 << 20)
    }

    /// An existing database keeps the mode its owner gave it.
    @Test func anExistingDatabaseKeepsItsMode() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/shared.sqlite"
        try DocumentStore(path: path).close()
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        try DocumentStore(path: path).close()
        #expect(try Self.mode(path) == 0o640)
    }
}

import AccordTesting
import Foundation
import Testing

/// `accord serve` keeps its data from other local users: the data directory it creates
/// is 0700 and every file in it 0600.
@Suite(.timeLimit(.minutes(2)))
struct ServeFileModeTests {
    static func mode(_ path: String) throws -> Int {
        ((try FileManager.default.attributesOfItem(atPath: path))[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func theDataDirectoryIs0700AndItsFiles0600() async throws {
        let parent = try TemporaryDirectory()
        let data = parent.path + "/data"
        let serve = try ServeProcess(dataDirectory: data)
        let client = try await SyncTestClient.connect(port: serve.port, document: "doc", token: serve.token)
        try client.edit("doc") { try $0.getText("t").insert(0, "private") }
        try await eventually("written") { FileManager.default.fileExists(atPath: data + "/accord.sqlite-wal") }
        #expect(try Self.mode(data) == 0o700)
        for name in try FileManager.default.contentsOfDirectory(atPath: data) {
            #expect(try Self.mode(data + "/" + name) == 0o600, "\(name)")
        }
        #expect(serve.terminate() == 0)
    }
}

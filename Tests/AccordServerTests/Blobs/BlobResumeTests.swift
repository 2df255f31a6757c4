import AccordCRDT
import AccordStore
import AccordTesting
import Foundation
import Testing

@testable import AccordServer

/// An upload cut off keeps what arrived as a durable offset, `HEAD` tells it, and a
/// `PUT` with `Content-Range` continues to a byte-identical blob: after a dropped
/// connection, and after the server process is killed and started again on its data.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct BlobResumeTests {
    /// A connection that sent `bytes` and stays open until `close`.
    final class OpenConnection {
        let fd: Int32
        init(port: Int, _ bytes: [UInt8]) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { throw TestFailure("cannot connect") }
            var sent = 0
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { throw TestFailure("send failed") }
                sent += n
            }
        }
        func close() { _ = Glibc.close(fd) }
    }

    static func offset(port: Int, _ path: String, token: String) throws -> Int? {
        let head = try BlobHTTP.curl(port: port, "HEAD", path, token: token)
        guard head.status == 404 else { return nil }
        return head.headers["accord-upload-offset"].flatMap { Int($0) }
    }

    @Test func anUploadCutOffMidBodyResumesFromTheOffsetTheServerReports() async throws {
        let server = try TestServer()
        try server.server.directory.create("doc", owner: "alice")
        let token = server.token("alice")
        let content = BlobHTTP.randomBytes(2_000_000, seed: 11)
        let hash = try BlobHTTP.sha256(content)
        let path = BlobHTTP.blobPath("doc", hash)
        let sent = 1_234_567
        let connection = try OpenConnection(
            port: server.port, BlobHTTP.putHead(path, token: token, length: Int64(content.count)) + content.prefix(sent))
        // While it streams, a second upload of the same blob is refused, not interleaved.
        #expect(BlobHTTP.eventually { (try? Self.offset(port: server.port, path, token: token)) == sent })
        let concurrent = try BlobHTTP.curl(
            port: server.port, "PUT", path, token: token, headers: ["Content-Range: bytes \(sent)-1999999/2000000"],
            data: Array(content[sent...]))
        #expect(concurrent.errorCode == "BLOB_UPLOAD_IN_PROGRESS")
        connection.close()
        // Nothing is served for a blob that is not complete.
        #expect(BlobHTTP.eventually { !server.server.blobs.isStreaming(BlobUploadRecord.key(try! BlobHash(hex: hash), "doc")) })
        #expect(try BlobHTTP.curl(port: server.port, "GET", path, token: token).status == 404)
        #expect(try Self.offset(port: server.port, path, token: token) == sent)
        let rest = try BlobHTTP.curl(
            port: server.port, "PUT", path, token: token, headers: ["Content-Range: bytes \(sent)-1999999/2000000"],
            data: Array(content[sent...]))
        #expect(rest.status == 201, "\(rest.text)")
        #expect(try BlobHTTP.curl(port: server.port, "GET", path, token: token).body == content)
        try await server.stop()
    }

    @Test func anUploadResumesAfterTheServerProcessIsKilled() async throws {
        let data = try TemporaryDirectory()
        var serve = try ServeProcess(dataDirectory: data.path)
        let token = serve.token
        let created = try BlobHTTP.curl(
            port: serve.port, "POST", "/v1/documents", token: token, headers: ["Content-Type: application/json"],
            data: Array(#"{"id":"trip"}"#.utf8))
        #expect(created.status == 201)
        let content = BlobHTTP.randomBytes(3_000_000, seed: 12)
        let hash = try BlobHTTP.sha256(content)
        let path = BlobHTTP.blobPath("trip", hash)
        let sent = 1_600_000
        let connection = try OpenConnection(
            port: serve.port, BlobHTTP.putHead(path, token: token, length: Int64(content.count)) + content.prefix(sent))
        let uploads = data.path + "/accord.sqlite.blobs/.resumable"
        #expect(BlobHTTP.eventually {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: uploads)) ?? []
            return names.contains { name in
                ((try? FileManager.default.attributesOfItem(atPath: uploads + "/" + name)[.size]) as? Int) == sent
            }
        })
        serve.kill()
        connection.close()

        serve = try ServeProcess(dataDirectory: data.path)
        let held = try #require(try Self.offset(port: serve.port, path, token: serve.token))
        #expect(held == sent)
        #expect(try BlobHTTP.curl(port: serve.port, "GET", path, token: serve.token).status == 404)
        let rest = try BlobHTTP.curl(
            port: serve.port, "PUT", path, token: serve.token,
            headers: ["Content-Range: bytes \(held)-\(content.count - 1)/\(content.count)"], data: Array(content[held...]))
        #expect(rest.status == 201, "\(rest.text)")
        let download = try BlobHTTP.curl(port: serve.port, "GET", path, token: serve.token)
        #expect(download.body == content)
        #expect(serve.terminate() == 0)
    }
}

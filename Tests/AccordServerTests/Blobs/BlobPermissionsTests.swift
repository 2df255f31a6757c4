import AccordCRDT
import AccordStore
import AccordTesting
import Foundation
import Testing

@testable import AccordServer

/// Every blob route for every kind of caller: owner, read-write, reader, link viewer,
/// stranger, no token. Reads need any role (link viewers included), uploads and
/// deletes need read-write; each refusal is coded and leaves the stored blobs (index,
/// references, unfinished uploads, content bytes) exactly as they were.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct BlobPermissionsTests {
    enum Caller: String, CaseIterable {
        case owner, readWrite, reader, linkViewer, stranger, noToken

        var canRead: Bool { self != .stranger && self != .noToken }
        var canWrite: Bool { self == .owner || self == .readWrite }
        /// The refusal a caller without the right gets.
        var refusal: (status: Int, code: String) {
            switch self {
            case .noToken: (401, "UNAUTHENTICATED")
            case .stranger: (403, "DOC_ACCESS_DENIED")
            default: (403, "PERMISSION_DENIED")
            }
        }
    }

    /// `shared` has alice as owner, bob read-write, carol reader; `linked` gives every
    /// signed-in user reader through link access (erin's only way in). Both hold one blob.
    struct Fixture {
        let server: TestServer
        let existing: [UInt8]
        let existingHash: String

        init() throws {
            server = try TestServer()
            let directory = server.server.directory
            try directory.create("shared", owner: "alice")
            try directory.create("linked", owner: "alice")
            var shared = try #require(try directory.access.access("shared"))
            shared.members["bob"] = .readWrite
            shared.members["carol"] = .reader
            try directory.access.setAccess(shared, for: "shared")
            var linked = try #require(try directory.access.access("linked"))
            linked.linkAccess = .reader
            try directory.access.setAccess(linked, for: "linked")
            existing = BlobHTTP.randomBytes(70_000, seed: 3)
            existingHash = try BlobHTTP.sha256(existing)
            for document in ["shared", "linked"] {
                let put = try BlobHTTP.curl(
                    port: server.port, "PUT", BlobHTTP.blobPath(document, existingHash), token: server.token("alice"),
                    data: existing)
                guard put.status == 201 || put.status == 200 else { throw TestFailure("setup upload: \(put.status)") }
            }
        }

        func document(for caller: Caller) -> String { caller == .linkViewer ? "linked" : "shared" }

        func token(for caller: Caller) -> String? {
            switch caller {
            case .owner: server.token("alice")
            case .readWrite: server.token("bob")
            case .reader: server.token("carol")
            case .linkViewer: server.token("erin")
            case .stranger: server.token("dave")
            case .noToken: nil
            }
        }

        func state() throws -> StoredBlobState { try StoredBlobState(server.server, documents: ["shared", "linked"]) }
    }

    @Test func readsFollowTheDocumentsReadRule() async throws {
        let fixture = try Fixture()
        let port = fixture.server.port
        for caller in Caller.allCases {
            let document = fixture.document(for: caller)
            let token = fixture.token(for: caller)
            let before = try fixture.state()
            let get = try BlobHTTP.curl(port: port, "GET", BlobHTTP.blobPath(document, fixture.existingHash), token: token)
            let head = try BlobHTTP.curl(port: port, "HEAD", BlobHTTP.blobPath(document, fixture.existingHash), token: token)
            let list = try BlobHTTP.curl(port: port, "GET", BlobHTTP.blobPath(document), token: token)
            if caller.canRead {
                #expect(get.status == 200, "\(caller) GET")
                #expect(get.body == fixture.existing, "\(caller) GET bytes")
                #expect(head.status == 200, "\(caller) HEAD")
                #expect(list.status == 200, "\(caller) list")
                #expect((list.json?["blobs"] as? [[String: Any]])?.count == 1, "\(caller) list")
            } else {
                for (name, response) in [("GET", get), ("list", list)] {
                    #expect(response.status == caller.refusal.status, "\(caller) \(name)")
                    #expect(response.errorCode == caller.refusal.code, "\(caller) \(name)")
                    #expect(!response.body.starts(with: fixture.existing.prefix(32)), "\(caller) \(name) leaked bytes")
                }
                #expect(head.status == caller.refusal.status, "\(caller) HEAD")
            }
            #expect(try fixture.state() == before, "\(caller): reads change nothing")
        }
        try await fixture.server.stop()
    }

    @Test func uploadsAndDeletesNeedWriteAccessAndRefusalsChangeNothing() async throws {
        let fixture = try Fixture()
        let port = fixture.server.port
        for (index, caller) in Caller.allCases.enumerated() {
            let document = fixture.document(for: caller)
            let token = fixture.token(for: caller)
            let fresh = BlobHTTP.randomBytes(50_000 + index, seed: 100 + UInt64(index))
            let freshHash = try BlobHTTP.sha256(fresh)
            let before = try fixture.state()
            let put = try BlobHTTP.curl(port: port, "PUT", BlobHTTP.blobPath(document, freshHash), token: token, data: fresh)
            // A continued upload and a reference to content already stored are uploads too.
            let part = try BlobHTTP.curl(
                port: port, "PUT", BlobHTTP.blobPath(document, freshHash), token: token,
                headers: ["Content-Range: bytes 0-99/\(fresh.count)"], data: Array(fresh.prefix(100)))
            if caller.canWrite {
                #expect(put.status == 201, "\(caller) PUT \(put.text)")
                #expect(part.status == 200, "\(caller) PUT of stored content")
                let delete = try BlobHTTP.curl(port: port, "DELETE", BlobHTTP.blobPath(document, freshHash), token: token)
                #expect(delete.status == 204, "\(caller) DELETE")
                #expect(try fixture.server.server.blobs.store.blobs(referencedBy: DocumentID(validating: document))
                    .map(\.hash.hex) == [fixture.existingHash])
            } else {
                for (name, response) in [("PUT", put), ("PUT part", part)] {
                    #expect(response.status == caller.refusal.status, "\(caller) \(name)")
                    #expect(response.errorCode == caller.refusal.code, "\(caller) \(name)")
                }
                let delete = try BlobHTTP.curl(
                    port: port, "DELETE", BlobHTTP.blobPath(document, fixture.existingHash), token: token)
                #expect(delete.status == caller.refusal.status, "\(caller) DELETE")
                #expect(delete.errorCode == caller.refusal.code, "\(caller) DELETE")
                #expect(try fixture.state() == before, "\(caller): refusals leave the stored blobs as they were")
            }
        }
        try await fixture.server.stop()
    }

    @Test func aMissingDocumentIs404ForEveryRoute() async throws {
        let fixture = try Fixture()
        let port = fixture.server.port
        let token = fixture.server.token("alice")
        let before = try fixture.state()
        for method in ["GET", "DELETE", "PUT"] {
            let response = try BlobHTTP.curl(
                port: port, method, BlobHTTP.blobPath("nowhere", fixture.existingHash), token: token,
                data: method == "PUT" ? fixture.existing : nil)
            #expect(response.status == 404, "\(method)")
            #expect(response.errorCode == "DOCUMENT_NOT_FOUND", "\(method)")
        }
        let bad = try BlobHTTP.curl(port: port, "GET", "/v1/documents/shared/blobs/" + String(repeating: "z", count: 64), token: token)
        // Not a blob path (z is no hex digit): the document routes answer it, as any other document path.
        #expect(bad.status == 404)
        #expect(try fixture.state() == before)
        try await fixture.server.stop()
    }
}

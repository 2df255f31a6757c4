import Foundation
import AccordCRDT
import AccordStore
import AccordNet
import AccordServer

/// A ``DocumentsAPI`` over an in-memory store with a fixed clock. The caller is the
/// `x-test-user` header (no header: `UNAUTHENTICATED`); access changes are recorded.
final class RESTHarness: Sendable {
    /// 2023-11-14T22:13:20.250Z
    static let now = Date(timeIntervalSince1970: 1_700_000_000.25)

    let documents: DocumentStore
    let directory: DocumentDirectory
    let api: DocumentsAPI
    let changes = Recorder<DocumentID>()

    init() {
        var options = DocumentStore.Options()
        options.now = { RESTHarness.now }
        documents = DocumentStore(storage: .inMemory(), options: options)
        directory = DocumentDirectory(documents: documents, access: AccessStore(storage: documents.storage))
        let changes = changes
        api = DocumentsAPI(
            directory: directory,
            authenticate: { request throws(AccordError) in
                guard let user = request.header("x-test-user") else {
                    throw AccordError(.unauthenticated, "no x-test-user header")
                }
                return user
            },
            accessChanged: { changes.add($0) })
    }

    /// Sends a request as `user` (nil: without credentials).
    func send(
        _ method: HTTPMethod, _ path: String, as user: String?, body: String? = nil, query: [QueryItem] = []
    ) -> HTTPResponse {
        var headers: [String: String] = [:]
        if let user { headers["x-test-user"] = user }
        if body != nil { headers["content-type"] = "application/json" }
        return api.respond(
            to: HTTPRequest(method: method, path: path, query: query, headers: headers, body: Array((body ?? "").utf8)))
    }

    /// Every record the API can write, by category and key: compared before and after a
    /// refused call, which must leave them byte-identical.
    func storedState(including extra: [String] = []) throws -> [String: [String: [UInt8]]] {
        try documents.storage.withAdapter { adapter in
            var state: [String: [String: [UInt8]]] = [:]
            let categories = ["server.access", "server.details", "doc.meta", "doc.snapshot", "doc.log"] + extra
            for category in categories.map(StorageCategory.init(rawValue:)) {
                for key in try adapter.keys(in: category) {
                    state[category.rawValue, default: [:]][key] = try adapter.read(category, key: key)
                }
            }
            // The owned-documents listing is a log per user: its entries, flattened.
            let owned = StorageCategory(rawValue: "server.owned")
            for key in try adapter.logKeys(in: owned) {
                let entries = try adapter.readLog(owned, key: key)
                state["server.owned", default: [:]][key] = entries.flatMap { Array("\($0.sequence):".utf8) + $0.value + [0] }
            }
            return state
        }
    }
}

/// A thread-safe list of what callbacks saw.
final class Recorder<Value: Sendable>: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `values` is only touched under `lock`.
    private let lock = NSLock()
    private var values: [Value] = []
    func add(_ value: Value) { lock.withLock { values.append(value) } }
    var all: [Value] { lock.withLock { values } }
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }

    /// `error.code` of a JSON error body, nil for any other body.
    var errorCode: String? {
        struct Envelope: Decodable {
            struct Inner: Decodable { var code: String }
            var error: Inner
        }
        return (try? JSONDecoder().decode(Envelope.self, from: Data(body)))?.error.code
    }

    /// The body as a JSON object (empty when it is not one).
    var object: [String: Any] {
        ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]) ?? [:]
    }
}

extension DocumentAccess {
    /// The row without its owner-listing sequence, which depends on how many documents
    /// the owner made before: for comparing with a row built by hand.
    var unlisted: DocumentAccess {
        var row = self
        row.ownerListing = nil
        return row
    }
}

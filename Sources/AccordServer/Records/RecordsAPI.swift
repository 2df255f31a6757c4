import Foundation
import AccordCRDT
import AccordNet
import AccordStore
import AccordRecords

/// Records over REST: the typed records of one document (the layout and query engine
/// of AccordRecords), read and written by back-ends that run no Swift client. Routes
/// (``RecordsRoute``) and shapes are in `docs/server-api.md`, "Records".
///
/// Writes go through the document's room like a client's edit: applied to the room's
/// `Doc` in one transaction, appended and flushed (durable), sent to every connected
/// client, and only then answered. Reads run the same SQLite query engine a client
/// runs, over an index of this document (``ServerRecordIndexes``).
///
/// Checks, in order (the first failure answers, and a refused call writes nothing):
/// the route (404, 405), authentication (401), the id and the body's JSON (400), the
/// document exists (404), the caller's role (403: readers read, read-write writes,
/// the owner sets the schema), the document has the model (404 `MODEL_NOT_REGISTERED`),
/// then the body against the schema and the filter limits (400), preconditions (409).
///
/// Success bodies are `{"result": ...}`; errors are the REST API's
/// `{"error": {"code", "message", "details"}}` (``RecordsError``).
struct RecordsAPI: Sendable {
    let directory: DocumentDirectory
    let schemas: RecordsSchemaStore
    let hub: SyncHub
    let indexes: ServerRecordIndexes
    let ingests: IngestSessions
    let authenticate: @Sendable (HTTPRequest) throws(AccordError) -> String
    /// Milliseconds since 1970, for auto-assigned ids.
    let now: @Sendable () -> UInt64

    /// The response to a records request (``RecordsRoute/claims(_:)`` said it is one).
    func respond(to request: HTTPRequest) -> HTTPResponse {
        let route: RecordsRoute
        switch RecordsRoute.parse(request.method, request.path) {
        case .success(let parsed): route = parsed
        case .failure(let refusal): return refusal.response
        }
        do {
            let user = try caller(of: request)
            let document = try DocumentID(validating: route.document)
            // Ingest chunks are ndjson text, read by their handler.
            let body = route.isIngestChunk ? nil : try Self.body(of: request)
            switch route {
            case .schema:
                return try schema(request, body, document: document, user: user)
            case .create(_, let model):
                return try create(body, model: model, document: document, user: user)
            case .record(_, let model, let id):
                switch request.method {
                case .get: return try read(model: model, id: id, document: document, user: user)
                case .patch: return try patch(request, body, model: model, id: id, document: document, user: user)
                default: return try delete(request, model: model, id: id, document: document, user: user)
                }
            case .bulk:
                return try bulk(body, document: document, user: user)
            case .query(_, let model):
                return try query(body, model: model, document: document, user: user)
            case .count(_, let model):
                return try count(body, model: model, document: document, user: user)
            case .aggregate(_, let model):
                return try aggregate(body, model: model, document: document, user: user)
            case .ingestCreate:
                return try createIngest(document: document, user: user)
            case .ingest(_, let session):
                return try ingest(request, session: session, document: document, user: user)
            case .ingestChunk(_, let session):
                return try ingestChunk(request, session: session, document: document, user: user)
            case .ingestCommit(_, let session):
                return try commitIngest(session: session, document: document, user: user)
            }
        } catch {
            return RecordsError.response(error)
        }
    }

    // MARK: Checks shared by the handlers

    private func caller(of request: HTTPRequest) throws(AccordError) -> String {
        try UserIDRule.signedIn(authenticate(request))
    }

    /// The body as JSON (nil when empty). Request bodies are bounded by the server's
    /// `--max-request-body-bytes`; a key named twice in one object is refused, since
    /// parsers disagree on which value wins.
    private static func body(of request: HTTPRequest) throws(AccordError) -> AnyValue? {
        guard !request.body.isEmpty else { return nil }
        do {
            return try AnyValue(jsonRefusingDuplicateKeys: request.body)
        } catch {
            if error.code == .invalidArgument { throw error }
            throw AccordError(.malformedJSON, "the request body is not valid JSON: \(error.message)")
        }
    }

    /// The document exists and the caller has at least `minimum` on it.
    func requireRole(_ minimum: Role, of user: String, on document: DocumentID) throws(AccordError) {
        guard try directory.documents.contains(document) else {
            throw AccordError(.documentNotFound, "no document \(document)", details: ["document": document.rawValue])
        }
        _ = try DocumentsAPI.requireRole(minimum, of: user, in: try directory.access.access(document), on: document, groups: directory.access)
    }

    /// The schema of `model` in `document`'s registered models.
    func model(_ name: String, in document: DocumentID) throws(AccordError) -> (model: ModelSchema, all: [ModelSchema]) {
        let models = try schemas.models(document) ?? []
        guard let model = models.first(where: { $0.name == name }) else {
            throw AccordError(
                .modelNotRegistered,
                "document \(document) has no model \"\(name)\"; register its schema with PUT /v1/documents/{id}/records/$schema",
                details: ["document": document.rawValue, "model": name])
        }
        return (model, models)
    }

    /// `{"result": value}` with `status`, and any extra headers.
    static func result(_ value: AnyValue, status: Int = 200, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        let envelope = AnyValue.object(OrderedObject([("result", value)]))
        return HTTPResponse(status: status, contentType: RESTJSON.contentType, headers: headers, body: Array(envelope.jsonText.utf8))
    }

    static func requiredBody(_ body: AnyValue?) throws(AccordError) -> AnyValue {
        guard let body else { throw AccordError(.invalidArgument, "this call needs a JSON body") }
        return body
    }
}

extension RecordsAPI {
    /// Routes every method under `/v1/documents` here when the path is a records path
    /// (``RecordsRoute/claims(_:)``), and to `documents` otherwise; replaces the
    /// documents API's own prefix routes, which it keeps serving.
    func register(in routes: inout HTTPRoutes, besides documents: DocumentsAPI) {
        let handler: HTTPRoutes.Handler = { request in
            // Records work reads or writes the document's content: off the network thread.
            RecordsRoute.claims(request.path)
                ? RESTWork.deferred { respond(to: request) } : documents.respond(to: request)
        }
        for method in [HTTPMethod.get, .put, .delete, .post, .patch] {
            routes.add(method, prefix: DocumentsRoute.collectionPath, handler)
        }
    }
}

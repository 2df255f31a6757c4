import AccordNet

/// Which records call a method and path name. The document id may contain `/`, so it
/// is everything between `/v1/documents/` and the first `/records/`; ids holding
/// `/records/` are refused at creation (``DocumentDirectory``), so every document can
/// be addressed. What follows is one of:
///
/// | path after `{id}/records/` | methods |
/// |---|---|
/// | `$schema` (the document's models, ``RecordsSchemaStore``) | GET, PUT |
/// | `$ingests`, `$ingests/{session}/chunks`, `$ingests/{session}/commit` | POST |
/// | `$ingests/{session}` | GET, DELETE |
/// | `bulk` | POST |
/// | `{model}` | POST (create) |
/// | `{model}/query`, `{model}/count`, `{model}/aggregate` | POST |
/// | `{model}/{recordId}` (the rest of the path, `/` included) | GET, PATCH, DELETE |
///
/// Model names are identifiers, so they never hold `/`; a record id is the rest of
/// the path, so any id (even `query`) can be read, patched and deleted.
enum RecordsRoute: Equatable {
    case create(document: String, model: String)
    case record(document: String, model: String, id: String)
    case query(document: String, model: String)
    case count(document: String, model: String)
    case aggregate(document: String, model: String)
    case bulk(document: String)
    case schema(document: String)
    case ingestCreate(document: String)
    case ingest(document: String, session: String)
    case ingestChunk(document: String, session: String)
    case ingestCommit(document: String, session: String)

    static let marker = "/records/"

    /// Whether `path` is a records path (then ``parse(_:_:)`` answers for it).
    static func claims(_ path: String) -> Bool { split(path) != nil }

    /// The document id text and the rest after the first `/records/`; nil when the path
    /// is not a records path.
    private static func split(_ path: String) -> (document: String, rest: String)? {
        let prefix = Array(DocumentsRoute.documentPrefix.utf8)
        let bytes = Array(path.utf8)
        guard bytes.count > prefix.count, bytes.starts(with: prefix) else { return nil }
        let marker = Array(Self.marker.utf8)
        let tail = bytes[prefix.count...]
        guard let start = tail.firstRange(of: marker) else { return nil }
        let document = String(decoding: tail[tail.startIndex..<start.lowerBound], as: UTF8.self)
        let rest = String(decoding: tail[start.upperBound...], as: UTF8.self)
        return (document, rest)
    }

    static func parse(_ method: HTTPMethod, _ path: String) -> Result<RecordsRoute, DocumentsRoute.Refusal> {
        guard let (document, rest) = split(path), !rest.isEmpty else { return .failure(.notFound) }
        if rest == "$schema" {
            return [.get, .put].contains(method)
                ? .success(.schema(document: document)) : .failure(.methodNotAllowed([.get, .put]))
        }
        if rest == "$ingests" || rest.hasPrefix("$ingests/") {
            return ingestRoute(method, document: document, rest: rest.dropFirst("$ingests".count))
        }
        if rest == "bulk" {
            return method == .post ? .success(.bulk(document: document)) : .failure(.methodNotAllowed([.post]))
        }
        let parts = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let model = String(parts[0])
        guard !model.isEmpty else { return .failure(.notFound) }
        guard parts.count == 2 else {
            return method == .post ? .success(.create(document: document, model: model)) : .failure(.methodNotAllowed([.post]))
        }
        let id = String(parts[1])
        guard !id.isEmpty else { return .failure(.notFound) }
        if method == .post {
            switch id {
            case "query": return .success(.query(document: document, model: model))
            case "count": return .success(.count(document: document, model: model))
            case "aggregate": return .success(.aggregate(document: document, model: model))
            default: return .failure(.methodNotAllowed([.get, .patch, .delete]))
            }
        }
        guard [.get, .patch, .delete].contains(method) else { return .failure(.methodNotAllowed([.get, .patch, .delete])) }
        return .success(.record(document: document, model: model, id: id))
    }

    /// `$ingests` (POST), `$ingests/{session}` (GET, DELETE), `$ingests/{session}/chunks`
    /// and `$ingests/{session}/commit` (POST); `rest` is what follows `$ingests`.
    private static func ingestRoute(_ method: HTTPMethod, document: String, rest: Substring) -> Result<RecordsRoute, DocumentsRoute.Refusal> {
        if rest.isEmpty {
            return method == .post ? .success(.ingestCreate(document: document)) : .failure(.methodNotAllowed([.post]))
        }
        let parts = rest.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let session = parts.first, !session.isEmpty, parts.count <= 2 else { return .failure(.notFound) }
        if parts.count == 1 {
            return [.get, .delete].contains(method)
                ? .success(.ingest(document: document, session: session)) : .failure(.methodNotAllowed([.get, .delete]))
        }
        let route: RecordsRoute
        switch parts[1] {
        case "chunks": route = .ingestChunk(document: document, session: session)
        case "commit": route = .ingestCommit(document: document, session: session)
        default: return .failure(.notFound)
        }
        return method == .post ? .success(route) : .failure(.methodNotAllowed([.post]))
    }

    /// The document id text of the route (validated later).
    var document: String {
        switch self {
        case .create(let document, _), .record(let document, _, _), .query(let document, _), .count(let document, _),
             .aggregate(let document, _), .bulk(let document), .schema(let document), .ingestCreate(let document),
             .ingest(let document, _), .ingestChunk(let document, _), .ingestCommit(let document, _):
            document
        }
    }
}

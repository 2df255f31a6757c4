import AccordCRDT
import AccordNet
import AccordStore
import AccordRecords

extension RecordsAPI {
    /// Most entries in one bulk body: far above a useful batch (the bench writes 1,000),
    /// far below what would hold the document's room for long.
    static let maxBulkOperations = 10_000

    /// `GET` (any role) reads the document's models, `PUT` (owner) replaces them with a
    /// schema file body (one model, or `{"models": [...]}`).
    func schema(_ request: HTTPRequest, _ body: AnyValue?, document: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        if request.method == .put {
            let json = try Self.requiredBody(body)
            try requireRole(.owner, of: user, on: document)
            let models = try ModelSchema.models(json: json)
            try schemas.setModels(models, for: document)
            return Self.result(RecordsSchemaStore.json(models))
        }
        try requireRole(.reader, of: user, on: document)
        return Self.result(RecordsSchemaStore.json(try schemas.models(document) ?? []))
    }

    /// `POST …/records/{model}`: 201 with the saved record (defaults filled, ids
    /// assigned) and its `ETag`.
    func create(_ body: AnyValue?, model name: String, document: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        let json = try Self.requiredBody(body)
        try requireRole(.readWrite, of: user, on: document)
        let (model, models) = try model(name, in: document)
        let write = try RecordBody.create(json, model: model)
        let applied = try apply([.create(model, write)], to: document, models: models)
        return Self.recordResponse(applied[0], status: 201)
    }

    /// `PATCH …/records/{model}/{id}` with an RFC 7396 merge patch; `If-Match` optional.
    func patch(
        _ request: HTTPRequest, _ body: AnyValue?, model name: String, id: String, document: DocumentID, user: String
    ) throws(AccordError) -> HTTPResponse {
        let json = try Self.requiredBody(body)
        try requireRole(.readWrite, of: user, on: document)
        let (model, models) = try model(name, in: document)
        let write = try RecordBody.patch(json, id: id, model: model)
        let applied = try apply([.patch(model, write, ifMatch: request.header("if-match"))], to: document, models: models)
        return Self.recordResponse(applied[0], status: 200)
    }

    /// `DELETE …/records/{model}/{id}`; `If-Match` optional. Answers `{"result":
    /// {"id", "deleted": true}}`.
    func delete(_ request: HTTPRequest, model name: String, id: String, document: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        try requireRole(.readWrite, of: user, on: document)
        let (model, models) = try model(name, in: document)
        _ = try apply([.delete(model, id: id, ifMatch: request.header("if-match"))], to: document, models: models)
        return Self.result(.object(OrderedObject([("id", .string(id)), ("deleted", .bool(true))])))
    }

    /// `POST …/records/bulk` with `{"operations": [{"op": "create"|"patch"|"delete",
    /// "model", "id"?, "value"?, "ifMatch"?}, ...]}`: all applied as one transaction, or
    /// none. Answers `{"result": [{"op", "model", "id"}, ...]}` in the body's order.
    func bulk(_ body: AnyValue?, document: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        let json = try Self.requiredBody(body)
        guard case .object(let root) = json, root.keys == ["operations"], case .array(let entries)? = root["operations"] else {
            throw AccordError(.invalidArgument, "a bulk body is {\"operations\": [...]}", details: ["field": "operations"])
        }
        guard entries.count <= Self.maxBulkOperations else {
            throw AccordError(
                .invalidArgument, "a bulk body holds at most \(Self.maxBulkOperations) operations, not \(entries.count)",
                details: ["field": "operations", "limit": String(Self.maxBulkOperations)])
        }
        try requireRole(.readWrite, of: user, on: document)
        let models = try schemas.models(document) ?? []
        var operations: [RecordOperation] = []
        for (position, entry) in entries.enumerated() {
            do throws(AccordError) {
                operations.append(try bulkOperation(entry, position: position, models: models, document: document))
            } catch {
                throw Self.atOperation(error, position, of: Int.max)
            }
        }
        guard !operations.isEmpty else { return Self.result(.array([])) }
        let applied = try apply(operations, to: document, models: models, readBack: false)
        return Self.result(.array(applied.map { operation in
            .object(OrderedObject([
                ("op", .string(operation.operation)), ("model", .string(operation.model)), ("id", .string(operation.id)),
            ]))
        }))
    }

    private func bulkOperation(
        _ entry: AnyValue, position: Int, models: [ModelSchema], document: DocumentID
    ) throws(AccordError) -> RecordOperation {
        let prefix = "operations[\(position)]."
        guard case .object(let fields) = entry else {
            throw AccordError(.invalidArgument, "an operation is an object", details: ["field": "operations[\(position)]"])
        }
        let allowed: Set<String> = ["op", "model", "id", "value", "ifMatch"]
        if let unknown = fields.keys.first(where: { !allowed.contains($0) }) {
            throw AccordError(.invalidArgument, "unknown key \"\(unknown)\"", details: ["field": prefix + unknown])
        }
        func text(_ key: String) throws(AccordError) -> String? {
            guard let value = fields[key] else { return nil }
            guard case .string(let string) = value, !string.isEmpty else {
                throw AccordError(.invalidArgument, "\"\(key)\" must be a non-empty string", details: ["field": prefix + key])
            }
            return string
        }
        guard let name = try text("model") else {
            throw AccordError(.invalidArgument, "\"model\" is required", details: ["field": prefix + "model"])
        }
        guard let model = models.first(where: { $0.name == name }) else {
            throw AccordError(.modelNotRegistered, "document \(document) has no model \"\(name)\"",
                              details: ["document": document.rawValue, "model": name])
        }
        let id = try text("id")
        let ifMatch = try text("ifMatch")
        switch try text("op") {
        case "create":
            var value = fields["value"] ?? .object(OrderedObject())
            if let id, case .object(var object) = value {
                object["id"] = .string(id)
                value = .object(object)
            }
            return .create(model, try RecordBody.create(value, model: model, prefix: prefix))
        case "patch":
            guard let id else { throw AccordError(.invalidArgument, "a patch names its \"id\"", details: ["field": prefix + "id"]) }
            guard let value = fields["value"] else {
                throw AccordError(.invalidArgument, "a patch has a \"value\"", details: ["field": prefix + "value"])
            }
            return .patch(model, try RecordBody.patch(value, id: id, model: model, prefix: prefix), ifMatch: ifMatch)
        case "upsert":
            guard let id else { throw AccordError(.invalidArgument, "an upsert names its \"id\"", details: ["field": prefix + "id"]) }
            let value = fields["value"] ?? .object(OrderedObject())
            return .upsert(model, try RecordBody.patch(value, id: id, model: model, prefix: prefix))
        case "delete":
            guard let id else { throw AccordError(.invalidArgument, "a delete names its \"id\"", details: ["field": prefix + "id"]) }
            return .delete(model, id: id, ifMatch: ifMatch)
        default:
            throw AccordError(.invalidArgument, "\"op\" is create, patch, upsert or delete", details: ["field": prefix + "op"])
        }
    }

    static func recordResponse(_ applied: AppliedRecordOperation, status: Int) -> HTTPResponse {
        let record = applied.record ?? .null
        return result(record, status: status, headers: [(name: "etag", value: RecordETag.of(record))])
    }
}

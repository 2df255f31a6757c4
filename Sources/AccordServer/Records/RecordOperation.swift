import AccordCRDT
import AccordRecords

/// One write of a records call: a single create, patch or delete, or one entry of a
/// bulk body. `ifMatch` is the `If-Match` condition on the record as it was before the
/// call.
enum RecordOperation {
    case create(ModelSchema, RecordWrite)
    case patch(ModelSchema, RecordWrite, ifMatch: String?)
    /// A merge patch of a record that may not exist yet (then it is created, with the
    /// model's defaults for the fields the patch does not name): an ingest line.
    case upsert(ModelSchema, RecordWrite)
    /// `mustExist` false: deleting a missing record does nothing (an ingest line).
    case delete(ModelSchema, id: String, ifMatch: String?, mustExist: Bool = true)

    var model: ModelSchema {
        switch self {
        case .create(let model, _), .patch(let model, _, _), .upsert(let model, _), .delete(let model, _, _, _): model
        }
    }

    var name: String {
        switch self {
        case .create: "create"
        case .patch: "patch"
        case .upsert: "upsert"
        case .delete: "delete"
        }
    }
}

/// What one operation did: the record's id and, unless it was deleted, the record as
/// saved (JSON, as ``IndexedRecord/json(model:)`` writes it).
struct AppliedRecordOperation {
    var operation: String
    var model: String
    var id: String
    var record: AnyValue?
}

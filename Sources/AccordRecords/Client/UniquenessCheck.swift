import AccordCRDT
import AccordStore

/// Checks records about to be saved against the model's unique fields and named
/// constraints: no other record the replica holds (every document in the index, and
/// the other records of the same batch) may share all of a constraint's values. A
/// constraint with a field absent or null does not apply to that record.
struct UniquenessCheck {
    let schema: ModelSchema
    let index: RecordIndex

    /// The constraints to check: each unique field as a constraint named after it, then
    /// the named ones.
    var constraints: [UniqueConstraint] {
        schema.fields.filter(\.unique).map { UniqueConstraint($0.name, fields: [$0.name]) } + schema.uniqueConstraints
    }

    func check(_ records: [(id: String, values: [String: RecordValue])], in document: DocumentID, doc: Doc) throws(AccordError) {
        let constraints = constraints
        guard !constraints.isEmpty else { return }
        var seen: [String: [[RecordValue]: String]] = [:]
        for (id, changes) in records {
            // What the record will hold: its stored values with the changes applied.
            var values = try RecordLayout.record(id, of: schema, in: doc)?.values ?? [:]
            for (field, value) in changes { values[field] = value }
            for constraint in constraints {
                let key = constraint.fields.map { values[$0] ?? .null }
                guard !key.contains(.null) else { continue }
                if let other = seen[constraint.name]?[key], other != id {
                    throw violation(constraint, existing: other, document: document)
                }
                seen[constraint.name, default: [:]][key] = id
                var filter: [(String, AnyValue)] = []
                for (field, value) in zip(constraint.fields, key) { filter.append((field, value.json)) }
                let matches = try index.query(schema.name, filter: Filter(json: .object(OrderedObject(filter))))
                if let clash = matches.first(where: { $0.id != id || $0.document != document }) {
                    throw violation(constraint, existing: clash.id, document: clash.document)
                }
            }
        }
    }

    private func violation(_ constraint: UniqueConstraint, existing: String, document: DocumentID) -> AccordError {
        AccordError(
            .uniqueViolation,
            "Model \"\(schema.name)\": unique constraint \"\(constraint.name)\" (\(constraint.fields.joined(separator: ", "))) "
                + "is already held by record \"\(existing)\" in document \(document).",
            details: ["model": schema.name, "constraint": constraint.name, "existing": existing, "document": document.rawValue])
    }
}

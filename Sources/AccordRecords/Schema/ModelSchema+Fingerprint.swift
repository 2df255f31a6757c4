extension ModelSchema {
    /// A text that changes whenever anything the index's tables depend on changes:
    /// field names, types and indexing (defaults and relationships do not shape tables,
    /// but are included so a changed schema is always re-registered the same way).
    var fingerprint: String {
        var parts = ["v1", name]
        for field in fields {
            parts.append(
                "f:\(field.name):\(field.type.rawValue):\(field.indexed):\(field.unique):\(field.autoAssign):"
                    + "\(field.maxCount.map(String.init) ?? "-"):\(field.defaultValue.map { "\($0)" } ?? "-")")
        }
        for constraint in uniqueConstraints {
            parts.append("u:\(constraint.name):\(constraint.fields.joined(separator: ","))")
        }
        for relationship in relationships {
            parts.append("r:\(relationship.name):\(relationship.model):\(relationship.kind)")
        }
        return parts.joined(separator: "|")
    }
}

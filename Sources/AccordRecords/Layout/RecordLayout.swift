public import AccordCRDT

/// Where records live in a document, readable and writable by any Yjs peer:
///
/// - one root `Y.Map` per model, named after the model, keyed by record id;
/// - a record is a nested `Y.Map` of field name → value (so edits of different fields
///   merge, and one field resolves by Yjs's map rule on every replica);
/// - a string-set field is a nested `Y.Map` of member → `true` (so concurrent adds and
///   removes of different members merge); a removed member is a deleted key.
///
/// The id is the key only; it is not repeated inside the record. Fields the schema does
/// not name are left alone (a newer app version may have written them).
public enum RecordLayout {
    /// Every record of `model` in `doc`, in id order (code points), and the ids of the
    /// records that break the schema (a value of the wrong type, a record that is not a
    /// map), which are left out.
    public static func records(of model: ModelSchema, in doc: Doc) throws(AccordError) -> (records: [RecordData], malformed: [String]) {
        let root = try doc.getMap(model.name)
        var records: [RecordData] = []
        var malformed: [String] = []
        for (id, content) in root.entries {
            if let record = decode(id: id, content, model: model) {
                records.append(record)
            } else {
                malformed.append(id)
            }
        }
        records.sort { CodePoints.less($0.id, $1.id) }
        return (records, malformed)
    }

    /// The record `id` of `model`: nil when there is none, `INVALID_ARGUMENT` when the
    /// document holds one that breaks the schema.
    public static func record(_ id: String, of model: ModelSchema, in doc: Doc) throws(AccordError) -> RecordData? {
        try record(id, of: model, inRoot: try doc.getMap(model.name))
    }

    /// ``record(_:of:in:)`` with the model's root map already found (a batch finds it once).
    static func record(_ id: String, of model: ModelSchema, inRoot root: YMap) throws(AccordError) -> RecordData? {
        guard let content = root.get(id) else { return nil }
        guard let record = decode(id: id, content, model: model) else {
            throw AccordError(
                .invalidArgument, "Model \"\(model.name)\": record \"\(id)\" in the document does not match the schema.",
                details: ["model": model.name, "id": id])
        }
        return record
    }

    /// The record in `content`, or nil when it breaks the schema.
    static func decode(id: String, _ content: YValue, model: ModelSchema) -> RecordData? {
        guard !id.isEmpty, case .map(let map) = content else { return nil }
        var values: [String: RecordValue] = .init(minimumCapacity: model.fields.count)
        for field in model.fields where field.name != ModelSchema.idField {
            guard let stored = map.get(field.name) else { continue }
            guard let value = FieldCoding.decode(stored, as: field.type) else { return nil }
            values[field.name] = value
        }
        return RecordData(id: id, values: values)
    }

    /// Writes `values` into record `id` of `model` and removes the fields in `removing`
    /// (they become absent), in one transaction, creating the record if needed. Every
    /// value is checked first, so a refused write changes nothing.
    /// - Throws: `INVALID_ARGUMENT` naming the field for an unknown field or a value of
    ///   the wrong type.
    public static func write(
        _ values: [String: RecordValue], removing: Set<String> = [], id: String, model: ModelSchema, in doc: Doc
    ) throws(AccordError) {
        try write(checked: check(values, removing: removing, id: id, model: model), id: id, model: model, in: doc)
    }

    /// Writes changes that ``check(_:removing:id:model:)`` accepted into record `id`, in
    /// one transaction, creating the record if needed.
    static func write(
        checked: [FieldChange], id: String, model: ModelSchema, in doc: Doc
    ) throws(AccordError) {
        let root = try doc.getMap(model.name)
        do {
            try doc.transact { try write(checked: checked, id: id, into: root) }
        } catch let error as AccordError {
            throw error
        } catch {
            throw AccordError(.invalidArgument, "writing record \"\(id)\" failed: \(error)")
        }
    }

    /// Writes checked changes into record `id` of the model whose root map is `root`,
    /// creating the record if needed (inside the caller's transaction).
    static func write(checked: [FieldChange], id: String, into root: YMap) throws(AccordError) {
        if case .map(let record)? = root.get(id) {
            for change in checked { try write(change.value, field: change.field, into: record) }
        } else {
            try writeNew(checked: checked, id: id, into: root)
        }
    }

    /// Writes checked changes as record `id`, which `root` does not hold (the caller
    /// looked): every value set straight into a new map, with no look-up of what the
    /// record held (a batch of new records is the hot path of inserts).
    static func writeNew(checked: [FieldChange], id: String, into root: YMap) throws(AccordError) {
        let record = try root.setMap(id)
        for change in checked {
            let field = change.field
            switch change.value {
            case nil:
                continue
            case .stringSet(let members)?:
                let set = try record.setMap(field)
                for member in members { try set.set(member, .bool(true)) }
            case let value?:
                try record.set(field, FieldCoding.content(value))
            }
        }
    }

    /// The changes ``write(_:removing:id:model:in:)`` would make, checked: each named
    /// field's name with its value (nil: removed), in the schema's field order (names,
    /// not ``FieldSchema``s: copying a schema field per value showed in bulk inserts). A batch checks
    /// every record with this before writing any, so a refused batch makes no edit
    /// (a `Doc` transaction that throws is rolled back whole, at a cost).
    /// - Throws: `INVALID_ARGUMENT` naming the field for an unknown field (the first by
    ///   code points when several) or a value of the wrong type, or for an empty id.
    static func check(
        _ values: [String: RecordValue], removing: Set<String>, id: String, model: ModelSchema
    ) throws(AccordError) -> [FieldChange] {
        try checkNamingID(values, removing: removing, id: id, model: model, names: FieldNames(model.fields)).changes
    }

    /// ``check(_:removing:id:model:)``, also telling whether `values` or `removing`
    /// named the id (a save leaves it out of the record it returns). `names` are
    /// `model.fields`' names (a batch makes them once).
    ///
    /// Saves are hot, so the given values are walked once and each is placed at its
    /// field's position in the schema (``FieldNames``): a hashed look-up per field was
    /// about a twentieth of saving a record.
    static func checkNamingID(
        _ values: [String: RecordValue], removing: Set<String>, id: String, model: ModelSchema, names: FieldNames
    ) throws(AccordError) -> (changes: [FieldChange], namesID: Bool) {
        guard !id.isEmpty else {
            throw AccordError(.invalidArgument, "Model \"\(model.name)\": a record id cannot be empty.", details: ["model": model.name])
        }
        // Each named field's position in the schema, with where its value is in `values`
        // (nil: removed).
        var named: [(position: Int, value: Dictionary<String, RecordValue>.Index?)] = []
        named.reserveCapacity(values.count + removing.count)
        var namesID = false
        var unknown = false
        func position(of name: String) -> Int? {
            guard let position = names.position(of: name), position != names.idPosition else {
                if name == ModelSchema.idField { namesID = true } else { unknown = true }
                return nil
            }
            return position
        }
        var index = values.startIndex
        while index != values.endIndex {
            if let position = position(of: values[index].key) { named.append((position, index)) }
            values.formIndex(after: &index)
        }
        for name in removing {
            // A field both given and removed keeps the value given.
            if let position = position(of: name), !named.contains(where: { $0.position == position }) {
                named.append((position, nil))
            }
        }
        // Into schema order: a handful of entries, in the dictionary's order.
        for next in named.indices.dropFirst() {
            var slot = next
            while slot > 0, named[slot - 1].position > named[slot].position {
                named.swapAt(slot - 1, slot)
                slot -= 1
            }
        }
        // Checked in schema order, so of several wrong values the same one is named every time.
        let fields = model.fields
        var checked: [FieldChange] = []
        checked.reserveCapacity(named.count)
        for (position, valueIndex) in named {
            guard let valueIndex else {
                checked.append(FieldChange(names.names[position], nil))
                continue
            }
            let value = values[valueIndex].value
            try FieldCoding.check(
                value, type: fields[position].type, maxCount: fields[position].maxCount,
                field: names.names[position], model: model.name)
            checked.append(FieldChange(names.names[position], value))
        }
        if unknown {
            let unknown = (Array(values.keys) + Array(removing)).filter { model.field($0) == nil }.sorted(by: CodePoints.less)
            let name = unknown.first ?? ""
            throw AccordError(
                .invalidArgument, "Model \"\(model.name)\" has no field \"\(name)\".", details: ["model": model.name, "field": name])
        }
        return (checked, namesID)
    }

    /// Removes record `id` of `model`; nothing happens when there is none.
    public static func delete(_ id: String, model: ModelSchema, in doc: Doc) throws(AccordError) {
        let root = try doc.getMap(model.name)
        guard root.contains(id) else { return }
        try root.delete(id)
    }

    private static func write(_ value: RecordValue?, field: String, into record: YMap) throws(AccordError) {
        guard let value else {
            if record.contains(field) { try record.delete(field) }
            return
        }
        guard case .stringSet(let members) = value else {
            try record.set(field, FieldCoding.content(value))
            return
        }
        // Only the difference is written, so a concurrent change of other members merges.
        let set: YMap
        if case .map(let existing)? = record.get(field) {
            set = existing
        } else {
            set = try record.setMap(field)
        }
        var stale: [String] = []
        set.forEachEntry { member, content in
            if !members.contains(member) || !content.isTrueValue { stale.append(member) }
        }
        for member in stale.sorted(by: CodePoints.less) { try set.delete(member) }
        for member in members where !(set.get(member)?.isTrueValue ?? false) {
            try set.set(member, .bool(true))
        }
    }
}

extension YValue {
    fileprivate var isTrueValue: Bool {
        if case .value(.bool(true)) = self { return true }
        return false
    }
}

import AccordCRDT
import AccordStore

extension RecordIndex {
    /// Removes from the members tables the members that the rows of `ids` in `document`
    /// (its ``documentKey(_:creating:)``)
    /// list now (run before those rows change or go). The members tables have no index
    /// by record, so a record's members are found through its row, and each is removed
    /// by its key. The lists are read here rather than with SQLite's `json_each`, which
    /// cuts a member at U+0000 (and a member left behind would still match `$contains`).
    func clearMembers(of ids: [String], in modelTables: ModelTables, document: Int64) throws(AccordError) {
        guard !modelTables.memberWrites.isEmpty, !ids.isEmpty else { return }
        let documentValue = SQLiteValue.integer(document)
        try removeMembers(
            listed(modelTables.listedMembers(of: ids.count), [documentValue] + ids.map { .text($0) }, modelTables),
            from: modelTables, document: documentValue)
    }

    /// Removes from the members tables every member of `document`'s records.
    func clearMembers(ofDocument document: Int64, in modelTables: ModelTables) throws(AccordError) {
        guard !modelTables.memberWrites.isEmpty else { return }
        let documentValue = SQLiteValue.integer(document)
        let columns = modelTables.memberWrites.map(\.column).joined(separator: ", ")
        try removeMembers(
            listed("SELECT id, \(columns) FROM \(modelTables.records) WHERE document = ?", [documentValue], modelTables),
            from: modelTables, document: documentValue)
    }

    /// The rows `select` finds: each id with its member lists (nil where the set is
    /// absent), one per string set in ``ModelTables/memberWrites`` order.
    private func listed(
        _ select: String, _ parameters: [SQLiteValue], _ modelTables: ModelTables
    ) throws(AccordError) -> [(id: String, lists: [String?])] {
        var listed: [(id: String, lists: [String?])] = []
        try connection.cachedStatement(select).forEachRow(parameters) { row in
            listed.append((row.text(0), modelTables.memberWrites.indices.map { Self.optionalText(row, Int32($0 + 1)) }))
        }
        return listed
    }

    private func removeMembers(
        _ listed: [(id: String, lists: [String?])], from modelTables: ModelTables, document: SQLiteValue
    ) throws(AccordError) {
        for (position, members) in modelTables.memberWrites.enumerated() {
            let delete = try connection.cachedStatement("DELETE FROM \(members.table) WHERE member = ? AND document = ? AND id = ?")
            for (id, lists) in listed {
                guard let list = lists[position], let set = MemberList.set(list) else { continue }
                for member in set { try delete.run([.text(member), document, .text(id)]) }
            }
        }
    }

    private static func optionalText(_ row: SQLiteStatement, _ column: Int32) -> String? {
        row.isNull(column) ? nil : row.text(column)
    }
}

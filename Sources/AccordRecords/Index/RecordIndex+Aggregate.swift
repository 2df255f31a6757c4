public import AccordCRDT
import AccordStore

extension RecordIndex {
    /// The aggregation over the records of `model` in the index (see
    /// ``AggregateOptions`` for the rules). Synchronous, from any thread.
    /// - Throws: `MODEL_NOT_REGISTERED`; `INVALID_QUERY` naming what is wrong.
    public func aggregate(_ model: String, _ options: AggregateOptions) throws(AccordError) -> [AggregateRow] {
        try reading { (connection, tables) throws(AccordError) -> [AggregateRow] in
            let modelTables = try Self.tables(model, in: tables)
            let plan = try AggregatePlan(options, model: modelTables.schema)
            let condition = try Self.condition(plan.predicate, options.documents, modelTables, connection)
            var select: [String] = []
            var selectParameters: [SQLiteValue] = []
            var source = modelTables.records
            for (index, group) in plan.groups.enumerated() {
                switch group {
                case .scalar(let field):
                    select.append("r.\(modelTables.column(field.name)) AS g\(index)")
                case .facet(let field):
                    source = Self.facetSource(field, modelTables)
                    select.append("r.accord_member AS g\(index)")
                case .membership(let field, let member):
                    select.append(
                        "CASE WHEN EXISTS (SELECT 1 FROM \(modelTables.members(field.name)) mm WHERE mm.member = ? "
                            + "AND mm.document = r.document AND mm.id = r.id) THEN 'true' ELSE 'false' END AS g\(index)")
                    selectParameters.append(.text(member))
                }
            }
            for (index, entry) in plan.operations.enumerated() {
                let column = entry.operation.field.map { "r.\(modelTables.column($0))" } ?? ""
                let expression = switch entry.operation {
                case .count: "count(*)"
                case .sum: "total(\(column))"  // total() of no values is 0.0, as the rule says
                case .avg: "avg(\(column))"
                case .min: "min(\(column))"
                case .max: "max(\(column))"
                }
                select.append("\(expression) AS o\(index)")
            }
            var sql = "SELECT \(select.joined(separator: ", ")) FROM \(source) r WHERE \(condition.sql)"
            let groupColumns = plan.groups.indices.map { "g\($0)" }
            if !groupColumns.isEmpty { sql += " GROUP BY \(groupColumns.joined(separator: ", "))" }
            var order: [String] = []
            if let sort = options.sort {
                let column = Self.aggregateColumn(sort.key, options)
                order.append("\(column) \(sort.direction == .ascending ? "ASC" : "DESC")")
            }
            order += groupColumns.map { "\($0) ASC" }
            if !order.isEmpty { sql += " ORDER BY \(order.joined(separator: ", "))" }
            var parameters = selectParameters + condition.parameters
            if let limit = options.limit {
                sql += " LIMIT ?"
                parameters.append(.integer(Int64(limit)))
            }
            var rows: [AggregateRow] = []
            try connection.cachedStatement(sql).forEachRow(parameters) { row in
                var values: [String: RecordValue] = [:]
                for (index, group) in plan.groups.enumerated() {
                    let type: FieldType = switch group {
                    case .scalar(let field): field.type
                    case .facet, .membership: .string
                    }
                    values[options.groupBy[index].key] = row.isNull(Int32(index)) ? .null : Self.value(row, Int32(index), type)
                }
                for (index, entry) in plan.operations.enumerated() {
                    let column = Int32(plan.groups.count + index)
                    let value: RecordValue
                    if row.isNull(column) {
                        value = .null
                    } else {
                        switch entry.operation {
                        case .count, .sum, .avg: value = .number(row.double(column))
                        case .min, .max: value = Self.value(row, column, entry.type ?? .number)
                        }
                    }
                    values[options.resultKey(index)] = value
                }
                rows.append(AggregateRow(values))
            }
            return rows
        }
    }

    /// The records of a string-set facet, one row per member (its columns plus
    /// `accord_member`) and one with a null member for each record without any, to
    /// stand for the model's table (aliased `r`, so filters and operations read it
    /// unchanged). Driven from the members table, which is keyed by member and has no
    /// index by record: joined the other way, each record would scan the whole table
    /// (`CROSS JOIN` keeps SQLite to this order).
    private static func facetSource(_ field: FieldSchema, _ modelTables: ModelTables) -> String {
        let column = modelTables.column(field.name)
        return "(SELECT r.*, f.member AS accord_member FROM \(modelTables.members(field.name)) f CROSS JOIN "
            + "\(modelTables.records) r ON r.document = f.document AND r.id = f.id UNION ALL "
            + "SELECT r.*, NULL AS accord_member FROM \(modelTables.records) r WHERE r.\(column) IS NULL OR r.\(column) = '[]')"
    }

    /// The SELECT alias holding a group or result key.
    private static func aggregateColumn(_ key: String, _ options: AggregateOptions) -> String {
        if let index = options.groupBy.firstIndex(where: { $0.key == key }) { return "g\(index)" }
        let index = options.operations.indices.first { options.resultKey($0) == key } ?? 0
        return "o\(index)"
    }
}

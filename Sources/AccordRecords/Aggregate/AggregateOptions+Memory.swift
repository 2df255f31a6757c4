public import AccordCRDT

extension AggregateOptions {
    /// The aggregation computed over `records` in memory: the reference the SQL path is
    /// tested against, and the path for records not in an index.
    /// - Throws: `INVALID_QUERY` naming what is wrong.
    public func evaluate(_ records: [RecordData], model: ModelSchema) throws(AccordError) -> [AggregateRow] {
        let plan = try AggregatePlan(self, model: model)
        var groups: [[RecordValue]: [RecordData]] = [:]
        var order: [[RecordValue]] = []
        for record in records where plan.predicate.matches(record) {
            for key in Self.groupKeys(record, plan.groups) {
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append(record)
            }
        }
        if plan.groups.isEmpty, groups.isEmpty {
            groups[[]] = []
            order = [[]]
        }
        var rows: [AggregateRow] = order.map { key in
            var values: [String: RecordValue] = [:]
            for (index, group) in groupBy.enumerated() { values[group.key] = key[index] }
            for (index, entry) in plan.operations.enumerated() {
                values[resultKey(index)] = Self.compute(entry.operation, over: groups[key] ?? [])
            }
            return AggregateRow(values)
        }
        rows.sort(by: plan.precedes)
        if let limit { rows = Array(rows.prefix(limit)) }
        return rows
    }

    /// The groups a record falls in: one, or one per member of the facet.
    private static func groupKeys(_ record: RecordData, _ groups: [AggregatePlan.Group]) -> [[RecordValue]] {
        var keys: [[RecordValue]] = [[]]
        for group in groups {
            switch group {
            case .scalar(let field):
                let value = record[field.name] ?? .null
                keys = keys.map { $0 + [value] }
            case .facet(let field):
                var members: [RecordValue] = []
                if case .stringSet(let set)? = record[field.name] { members = set.members.map { .string($0) } }
                if members.isEmpty { members = [.null] }
                keys = keys.flatMap { key in members.map { key + [$0] } }
            case .membership(let field, let member):
                var has = false
                if case .stringSet(let set)? = record[field.name] { has = set.contains(member) }
                keys = keys.map { $0 + [.string(has ? "true" : "false")] }
            }
        }
        return keys
    }

    private static func compute(_ operation: Operation, over records: [RecordData]) -> RecordValue {
        guard let field = operation.field else { return .number(Double(records.count)) }
        let values = records.compactMap { record -> RecordValue? in
            guard let value = record[field], value != .null else { return nil }
            return value
        }
        switch operation {
        case .count:
            return .number(Double(records.count))
        case .sum:
            return .number(values.reduce(0) { total, value in
                if case .number(let number) = value { return total + number }
                return total
            })
        case .avg:
            let numbers = values.compactMap { if case .number(let n) = $0 { n } else { nil } }
            return numbers.isEmpty ? .null : .number(numbers.reduce(0, +) / Double(numbers.count))
        case .min:
            return values.min { RecordOrder.compare($0, $1) < 0 } ?? .null
        case .max:
            return values.max { RecordOrder.compare($0, $1) < 0 } ?? .null
        }
    }
}

public import AccordCRDT

/// An aggregation checked against its model: every name resolved, every rule of
/// ``AggregateOptions`` enforced once, for the SQL path and the in-memory path alike.
struct AggregatePlan {
    enum Group {
        case scalar(FieldSchema)
        case facet(FieldSchema)
        case membership(FieldSchema, member: String)
    }

    let options: AggregateOptions
    let predicate: RecordPredicate
    let groups: [Group]
    /// Each operation with the type of its field (nil for count).
    let operations: [(operation: AggregateOptions.Operation, type: FieldType?)]

    init(_ options: AggregateOptions, model: ModelSchema) throws(AccordError) {
        self.options = options
        predicate = try options.filter.compile(for: model)
        var groups: [Group] = []
        var keys: Set<String> = []
        for (index, group) in options.groupBy.enumerated() {
            let path = "groupBy[\(index)]"
            guard keys.insert(group.key).inserted else { throw Self.invalid(path, "group \"\(group.key)\" appears twice") }
            switch group {
            case .field(let name):
                guard let field = model.field(name) else { throw Self.invalid(path, "model \"\(model.name)\" has no field \"\(name)\"") }
                if field.type == .stringSet {
                    guard !groups.contains(where: { if case .facet = $0 { true } else { false } }) else {
                        throw Self.invalid(path, "one string-set facet per aggregation")
                    }
                    groups.append(.facet(field))
                } else {
                    groups.append(.scalar(field))
                }
            case .stringSetMembership(let name, let member):
                guard let field = model.field(name), field.type == .stringSet else {
                    throw Self.invalid(path, "\"\(name)\" is not a stringset field of model \"\(model.name)\"")
                }
                groups.append(.membership(field, member: member))
            }
        }
        self.groups = groups
        guard !options.operations.isEmpty else { throw Self.invalid("operations", "at least one operation is needed") }
        var operations: [(AggregateOptions.Operation, FieldType?)] = []
        for (index, operation) in options.operations.enumerated() {
            let path = "operations[\(index)]"
            guard keys.insert(options.resultKey(index)).inserted else {
                throw Self.invalid(path, "result \"\(options.resultKey(index))\" appears twice")
            }
            guard let name = operation.field else {
                operations.append((operation, nil))
                continue
            }
            guard let field = model.field(name), field.type != .stringSet else {
                throw Self.invalid(path, "\"\(name)\" is not a scalar field of model \"\(model.name)\"")
            }
            switch operation {
            case .sum, .avg:
                guard field.type == .number else { throw Self.invalid(path, "sum and avg need a number field; \"\(name)\" is \(field.type.rawValue)") }
            default:
                break
            }
            operations.append((operation, field.type))
        }
        self.operations = operations
        if let sort = options.sort, !keys.contains(sort.key) {
            throw Self.invalid("sort", "\"\(sort.key)\" is neither a group nor a result of this aggregation")
        }
        if let limit = options.limit, limit < 0 { throw Self.invalid("limit", "must not be negative") }
    }

    /// The order of result rows: the sort key, then the group keys in order.
    func precedes(_ a: AggregateRow, _ b: AggregateRow) -> Bool {
        if let sort = options.sort {
            let order = RecordOrder.compare(a[sort.key], b[sort.key])
            if order != 0 { return sort.direction == .ascending ? order < 0 : order > 0 }
        }
        for group in options.groupBy {
            let order = RecordOrder.compare(a[group.key], b[group.key])
            if order != 0 { return order < 0 }
        }
        return false
    }

    static func invalid(_ path: String, _ problem: String) -> AccordError {
        AccordError(.invalidQuery, "\(path): \(problem)", details: ["path": path])
    }
}

public import AccordCRDT

extension Filter {
    /// The predicate this filter means. With a `model`, every field named must be one of
    /// its fields (or `id`).
    /// - Throws: `INVALID_QUERY` naming the path of the fault, e.g.
    ///   `filter.$or[1].priority.$gte: expected a number, string, boolean or null`.
    public func compile(for model: ModelSchema? = nil) throws(AccordError) -> RecordPredicate {
        var compiler = FilterCompiler(model: model)
        return try compiler.object(json, path: "filter")
    }
}

/// Walks a filter's JSON. Depth is bounded, so a hostile filter cannot exhaust the stack.
struct FilterCompiler {
    let model: ModelSchema?
    static let maxDepth = 32
    private var depth = 0

    init(model: ModelSchema?) { self.model = model }

    mutating func object(_ json: AnyValue, path: String) throws(AccordError) -> RecordPredicate {
        guard case .object(let entries) = json else { throw Self.invalid(path, "expected an object") }
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw Self.invalid(path, "filters nest at most \(Self.maxDepth) levels") }
        var parts: [RecordPredicate] = []
        for (key, value) in entries {
            let here = "\(path).\(key)"
            switch key {
            case "$and", "$or":
                guard case .array(let elements) = value, !elements.isEmpty else {
                    throw Self.invalid(here, "expected a non-empty array of filters")
                }
                var branches: [RecordPredicate] = []
                for (index, element) in elements.enumerated() {
                    branches.append(try object(element, path: "\(here)[\(index)]"))
                }
                parts.append(key == "$and" ? .and(branches) : .or(branches))
            case let name where name.hasPrefix("$"):
                throw Self.invalid(here, "unknown operator \(name) (at this level only $and and $or, or field names)")
            default:
                try checkField(key, path: here)
                parts.append(try condition(value, field: key, path: here))
            }
        }
        switch parts.count {
        case 0: return .all
        case 1: return parts[0]
        default: return .and(parts)
        }
    }

    /// `{field: value}` or `{field: {$op: operand, ...}}`.
    private func condition(_ json: AnyValue, field: String, path: String) throws(AccordError) -> RecordPredicate {
        guard case .object(let operators) = json else {
            return .equals(field: field, try Self.scalar(json, path: path))
        }
        let keys = Array(operators.map(\.key))
        guard !keys.isEmpty, keys.allSatisfy({ $0.hasPrefix("$") }) else {
            throw Self.invalid(path, "expected operators ($eq, $gt, ...); objects are not field values")
        }
        var parts: [RecordPredicate] = []
        for (name, operand) in operators {
            parts.append(try apply(name, operand, field: field, path: "\(path).\(name)"))
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private func apply(_ name: String, _ operand: AnyValue, field: String, path: String) throws(AccordError) -> RecordPredicate {
        switch name {
        case "$eq":
            return .equals(field: field, try Self.scalar(operand, path: path))
        case "$ne":
            return .not(.equals(field: field, try Self.scalar(operand, path: path)))
        case "$gt", "$gte", "$lt", "$lte":
            return .compare(field: field, RecordPredicate.Comparison(rawValue: name)!, try Self.scalar(operand, path: path))
        case "$in", "$nin":
            guard case .array(let elements) = operand else { throw Self.invalid(path, "expected an array of values") }
            var values: [RecordValue] = []
            for (index, element) in elements.enumerated() {
                values.append(try Self.scalar(element, path: "\(path)[\(index)]"))
            }
            return name == "$in" ? .isIn(field: field, values) : .not(.isIn(field: field, values))
        case "$startsWith":
            return .startsWith(field: field, try Self.string(operand, path: path))
        case "$endsWith":
            return .endsWith(field: field, try Self.string(operand, path: path))
        case "$containsText":
            return .containsText(field: field, try Self.string(operand, path: path))
        case "$contains":
            return .hasMember(field: field, try Self.string(operand, path: path))
        case "$exists":
            guard case .bool(let flag) = operand else { throw Self.invalid(path, "expected true or false") }
            return .exists(field: field, flag)
        default:
            throw Self.invalid(path, "unknown operator \(name)")
        }
    }

    private func checkField(_ name: String, path: String) throws(AccordError) {
        guard let model, model.field(name) == nil else { return }
        throw Self.invalid(path, "model \"\(model.name)\" has no field \"\(name)\"")
    }

    private static func scalar(_ json: AnyValue, path: String) throws(AccordError) -> RecordValue {
        switch json {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .int(let number): return .number(Double(number))
        case .double(let number) where number.isFinite: return .number(number)
        case .string(let text): return .string(text)
        default: throw invalid(path, "expected a number, string, boolean or null")
        }
    }

    private static func string(_ json: AnyValue, path: String) throws(AccordError) -> String {
        guard case .string(let text) = json else { throw invalid(path, "expected a string") }
        return text
    }

    static func invalid(_ path: String, _ problem: String) -> AccordError {
        AccordError(.invalidQuery, "\(path): \(problem)", details: ["path": path])
    }
}

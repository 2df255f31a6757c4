import AccordCRDT

/// One object of a schema file as it is read: typed getters that name the path of a
/// fault (`fields[2].type`), and a check that refuses keys the schema does not define,
/// so a typo such as `"indexd": true` is an error rather than silently ignored.
/// Every fault is `INVALID_SCHEMA` with `details["path"]` (and the model and field
/// when they are known).
struct SchemaJSONObject {
    let path: String
    let model: String?
    let field: String?
    private let entries: OrderedObject

    init(_ json: AnyValue, path: String, model: String?, field: String? = nil) throws(AccordError) {
        self.path = path
        self.model = model
        self.field = field
        guard case .object(let entries) = json else {
            throw Self.invalid(path, "expected an object", model: model, field: field)
        }
        self.entries = entries
    }

    /// Refuses any key not in `keys`.
    func allowOnly(_ keys: [String]) throws(AccordError) {
        for key in entries.keys where !keys.contains(key) {
            throw invalid(key, "unknown key (expected \(keys.joined(separator: ", ")))")
        }
    }

    func value(_ key: String) -> AnyValue? { entries[key] }

    func string(_ key: String) throws(AccordError) -> String? {
        guard let value = entries[key] else { return nil }
        guard case .string(let text) = value else { throw invalid(key, "expected a string") }
        return text
    }

    func requiredString(_ key: String) throws(AccordError) -> String {
        guard let text = try string(key) else { throw invalid(key, "missing (a string is required)") }
        return text
    }

    func bool(_ key: String) throws(AccordError) -> Bool? {
        guard let value = entries[key] else { return nil }
        guard case .bool(let flag) = value else { throw invalid(key, "expected true or false") }
        return flag
    }

    func integer(_ key: String) throws(AccordError) -> Int? {
        guard let value = entries[key] else { return nil }
        switch value {
        case .int(let number) where number >= Int64(Int.min) && number <= Int64(Int.max): return Int(number)
        default: throw invalid(key, "expected a whole number")
        }
    }

    func array(_ key: String) throws(AccordError) -> [AnyValue]? {
        guard let value = entries[key] else { return nil }
        guard case .array(let elements) = value else { throw invalid(key, "expected an array") }
        return elements
    }

    /// The path of `key` inside this object.
    func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func invalid(_ key: String?, _ problem: String) -> AccordError {
        Self.invalid(key.map(child) ?? path, problem, model: model, field: field)
    }

    static func invalid(_ path: String, _ problem: String, model: String?, field: String?) -> AccordError {
        var details = ["path": path.isEmpty ? "$" : path]
        if let model { details["model"] = model }
        if let field { details["field"] = field }
        let subject = model.map { "Model \"\($0)\"" } ?? "Schema"
        return AccordError(.invalidSchema, "\(subject): \(path.isEmpty ? "" : "\(path): ")\(problem).", details: details)
    }
}

import Foundation
import AccordCRDT

/// A request body read as a JSON object whose keys are all known and whose values have
/// the expected types. Anything else is refused before a handler acts: text that is
/// not JSON is `MALFORMED_JSON`; JSON of the wrong shape (not an object, an unknown
/// key, a value of the wrong type, `null`, a key named twice in one object) is
/// `INVALID_ARGUMENT`; so is a body over ``maxBytes``.
struct JSONBody {
    /// Far above any valid body (a title, some tags, a user id), far below memory trouble.
    static let maxBytes = 64 * 1024

    // Any: JSONSerialization's values, read only through the typed accessors below.
    private let object: [String: Any]
    /// The same body as the project's own JSON value, for fields that hold any JSON.
    private let value: AnyValue

    /// A field that may be absent (leave unchanged), `null` (clear) or a value (set).
    enum Field<Value> {
        case absent
        case null
        case value(Value)
    }

    init(_ bytes: [UInt8], allowedKeys: Set<String>) throws(AccordError) {
        guard bytes.count <= Self.maxBytes else {
            throw AccordError(
                .invalidArgument, "the request body has \(bytes.count) bytes; the limit is \(Self.maxBytes)",
                details: ["limit": String(Self.maxBytes)])
        }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            throw AccordError(.malformedJSON, "the request body is not valid JSON")
        }
        value = try Self.checkNoDuplicateKeys(bytes)
        guard let object = parsed as? [String: Any] else {
            throw AccordError(.invalidArgument, "the request body must be a JSON object")
        }
        if let unknown = object.keys.sorted().first(where: { !allowedKeys.contains($0) }) {
            let allowed = allowedKeys.sorted().joined(separator: ", ")
            throw AccordError(
                .invalidArgument, "unknown field \"\(unknown)\" (allowed: \(allowed))", details: ["field": unknown])
        }
        self.object = object
    }

    /// `INVALID_ARGUMENT` when an object in `bytes` (JSON that JSONSerialization
    /// accepted) names a key twice. JSONSerialization keeps the last value silently, and
    /// other parsers keep the first, so such a body means different things to different
    /// readers. The project's own parser, told to refuse repeats, reads it again (bodies
    /// are at most 64 KiB); if it cannot read what JSONSerialization did (nesting over
    /// 64 levels, which no valid body has), the body is refused as `MALFORMED_JSON`.
    @discardableResult
    static func checkNoDuplicateKeys(_ bytes: [UInt8]) throws(AccordError) -> AnyValue {
        do {
            return try AnyValue(jsonRefusingDuplicateKeys: bytes)
        } catch {
            if error.code == .invalidArgument { throw error }
            throw AccordError(.malformedJSON, "the request body is not valid JSON: \(error.message)")
        }
    }

    /// The body, or nil for an empty body (allowed where a body is optional).
    static func optional(_ bytes: [UInt8], allowedKeys: Set<String>) throws(AccordError) -> JSONBody? {
        bytes.isEmpty ? nil : try JSONBody(bytes, allowedKeys: allowedKeys)
    }

    /// The string under `key`, nil when the key is absent.
    func string(_ key: String) throws(AccordError) -> String? {
        guard let value = object[key] else { return nil }
        guard let string = value as? String else { throw Self.wrongType(key, "a string") }
        return string
    }

    /// The boolean under `key`, nil when the key is absent.
    func bool(_ key: String) throws(AccordError) -> Bool? {
        guard let value = object[key] else { return nil }
        guard let flag = value as? Bool else { throw Self.wrongType(key, "true or false") }
        return flag
    }

    /// The array of strings under `key`, nil when the key is absent.
    func strings(_ key: String) throws(AccordError) -> [String]? {
        guard let value = object[key] else { return nil }
        guard let array = value as? [Any] else { throw Self.wrongType(key, "an array of strings") }
        var strings: [String] = []
        for element in array {
            guard let string = element as? String else { throw Self.wrongType(key, "an array of strings") }
            strings.append(string)
        }
        return strings
    }

    /// The string under `key`, where `null` is allowed and means "clear".
    func nullableString(_ key: String) throws(AccordError) -> Field<String> {
        guard let value = object[key] else { return .absent }
        if value is NSNull { return .null }
        guard let string = value as? String else { throw Self.wrongType(key, "a string or null") }
        return .value(string)
    }

    /// Any JSON value under `key` (`null` means "clear").
    func json(_ key: String) -> Field<AnyValue> {
        guard case .object(let fields) = value, let field = fields.dictionary[key] else { return .absent }
        if case .null = field { return .null }
        return .value(field)
    }

    /// The string under `key`; `INVALID_ARGUMENT` when it is absent.
    func requiredString(_ key: String) throws(AccordError) -> String {
        guard let string = try string(key) else {
            throw AccordError(.invalidArgument, "the field \"\(key)\" is required", details: ["field": key])
        }
        return string
    }

    /// The role under `key` (`"reader"`, `"read-write"`, `"owner"`); required.
    func role(_ key: String) throws(AccordError) -> Role {
        let raw = try requiredString(key)
        guard let role = Role(rawValue: raw) else {
            throw AccordError(
                .invalidArgument, "\"\(raw)\" is not a role (reader, read-write, owner)", details: ["field": key])
        }
        return role
    }

    private static func wrongType(_ key: String, _ expected: String) -> AccordError {
        AccordError(.invalidArgument, "the field \"\(key)\" must be \(expected)", details: ["field": key])
    }
}

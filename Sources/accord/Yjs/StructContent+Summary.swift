import AccordCRDT

/// How `inspect` shows an item's content: a one-line summary for people, a full value
/// for `--json`. Kind names are the ones `design/vectors/vectors.json` uses.
extension StructContent {
    var kindName: String {
        switch self {
        case .deleted: "Deleted"
        case .json: "JSON"
        case .binary: "Binary"
        case .string: "String"
        case .embed: "Embed"
        case .format: "Format"
        case .type: "Type"
        case .any: "Any"
        case .doc: "Doc"
        }
    }

    /// Summaries longer than this are cut, so one struct stays one line.
    static let summaryLimit = 60

    var summary: String {
        let detail: String
        switch self {
        case .deleted: return kindName
        case .json(let values): detail = AnyValue.array(values).jsonText
        case .binary(let bytes): return "\(kindName) \(bytes.count) byte\(bytes.count == 1 ? "" : "s")"
        case .string(let units): detail = AnyValue.string(String(decoding: units, as: UTF16.self)).jsonText
        case .embed(let value): detail = value.jsonText
        case .format(let key, let value): detail = "\(AnyValue.string(key).jsonText)=\(value.jsonText)"
        case .type(let kind): detail = Self.typeText(kind)
        case .any(let values): detail = AnyValue.array(values).jsonText
        case .doc(let guid, _): detail = "guid=\(AnyValue.string(guid).jsonText)"
        }
        let cut = detail.count > Self.summaryLimit ? String(detail.prefix(Self.summaryLimit)) + "…" : detail
        return "\(kindName) \(cut)"
    }

    var jsonValue: AnyValue {
        var o = OrderedObject([("kind", .string(kindName))])
        switch self {
        case .deleted: break
        case .json(let values), .any(let values): o["values"] = .array(values)
        case .binary(let bytes): o["hex"] = .string(HexText.encode(bytes))
        case .string(let units): o["value"] = .string(String(decoding: units, as: UTF16.self))
        case .embed(let value): o["value"] = value
        case .format(let key, let value):
            o["key"] = .string(key)
            o["value"] = value
        case .type(let kind):
            o["type"] = .string(UpdateReport.kindName(kind))
            switch kind {
            case .xmlElement(let name), .xmlHook(let name): o["name"] = .string(name)
            default: break
            }
        case .doc(let guid, let options):
            o["guid"] = .string(guid)
            o["options"] = options
        }
        return .object(o)
    }

    static func typeText(_ kind: TypeKind) -> String {
        switch kind {
        case .xmlElement(let name), .xmlHook(let name): "\(UpdateReport.kindName(kind)) \(AnyValue.string(name).jsonText)"
        default: UpdateReport.kindName(kind)
        }
    }
}

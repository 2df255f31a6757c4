import AccordCRDT
import AccordStore
import AccordNet

/// Entity tags of records, for `If-Match`: the quoted hex of the first 16 bytes of the
/// SHA-256 of the record's JSON (`id`, `document`, fields in the model's order). Derived
/// from the content, so every server and replica gives a record the same tag, and a tag
/// changes exactly when the record does.
enum RecordETag {
    static func of(_ record: AnyValue) -> String {
        var hasher: SHA256Hasher
        do {
            hasher = try SHA256Hasher()
        } catch {
            // The hardware engine is only chosen when present; libsodium always is.
            return "\"\(record.jsonText.utf8.count)\""
        }
        hasher.update(Array(record.jsonText.utf8))
        let digest = hasher.finish().bytes.prefix(16)
        return "\"" + digest.map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined() + "\""
    }

    /// `CONDITION_NOT_MET` unless `ifMatch` (an `If-Match` header: `*` or a list of
    /// tags, weak ones compared by their opaque part) holds for `current`, the record as
    /// it is (nil: there is none). No header: no condition.
    static func require(_ ifMatch: String?, current: AnyValue?, model: String, id: String) throws(AccordError) {
        guard let ifMatch else { return }
        let tags = ifMatch.split(separator: ",").map { part -> String in
            var tag = part.trimmingCharacters(in: " \t")
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag
        }
        let holds: Bool
        if let current {
            let tag = of(current)
            holds = tags.contains("*") || tags.contains(tag)
        } else {
            holds = false
        }
        guard holds else {
            throw AccordError(
                .conditionNotMet, "If-Match does not hold for record \"\(id)\" of model \"\(model)\"; read it again",
                details: ["model": model, "id": id, "ifMatch": ifMatch])
        }
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice.removeFirst() }
        while let last = slice.last, set.contains(last) { slice.removeLast() }
        return String(slice)
    }
}

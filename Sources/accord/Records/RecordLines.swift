import AccordCRDT
import AccordRecords
import Foundation

/// The ndjson `accord records put` reads: one JSON object per line, blank lines
/// skipped. Errors about a record name its line (`stdin line 3: ...`, and
/// `details["input"]`/`details["line"]`), which also makes an `INVALID_ARGUMENT` about a
/// record a data error (exit 65) rather than a usage error (see ``ExitStatus``).
struct RecordLines {
    /// Each record's text with its line number (from 1).
    private(set) var lines: [(number: Int, text: String)] = []

    init(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.hasSuffix("\r") ? line.dropLast() : line
            if trimmed.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            lines.append((offset + 1, String(trimmed)))
        }
    }

    /// The records, in order.
    /// - Throws: `MALFORMED_JSON` or `INVALID_ARGUMENT` naming the line.
    func writes() throws(AccordError) -> [RecordWrite] {
        var writes: [RecordWrite] = []
        for (position, line) in lines.enumerated() {
            do throws(AccordError) {
                writes.append(try RecordWrite(json: AnyValue(jsonText: line.text)))
            } catch {
                throw attributed(error, position: position)
            }
        }
        return writes
    }

    /// `error` with the line of the record it is about, when it names one
    /// (`details["batchIndex"]`, set by the batch writer).
    func attributed(_ error: AccordError) -> AccordError {
        guard let text = error.details["batchIndex"], let position = Int(text), lines.indices.contains(position) else {
            return error
        }
        var result = attributed(error, position: position)
        result.details["batchIndex"] = nil
        return result
    }

    private func attributed(_ error: AccordError, position: Int) -> AccordError {
        let number = lines[position].number
        var details = error.details
        details["input"] = "stdin"
        details["line"] = String(number)
        return AccordError(error.code, "stdin line \(number): \(error.message)", details: details)
    }
}

import AccordCRDT
import AccordRecords

/// The process exit status for each error code, mapped once for the whole CLI.
///
/// Statuses follow BSD `sysexits.h` where one fits, so scripts can tell bad input from
/// a missing file without parsing stderr: 65 is `EX_DATAERR`, 74 is `EX_IOERR`. Usage
/// errors exit 2, as most Unix tools do.
enum ExitStatus {
    static let success: Int32 = 0
    static let usage: Int32 = 2
    /// Any code not listed below (including codes added later).
    static let other: Int32 = 1

    /// `EX_DATAERR`: the input data was wrong.
    static let dataError: Int32 = 65

    static let byCode: [ErrorCode: Int32] = [
        .invalidArgument: usage,
        .malformedUpdate: dataError,
        .malformedMessage: dataError,
        .malformedJSON: dataError,
        .invalidQuery: dataError,
        .invalidSchema: dataError,
        .reservedFieldName: dataError,
        .uniqueOnStringSet: dataError,
        .uniqueViolation: dataError,
        .ioError: 74,
    ]

    static func forCode(_ code: ErrorCode) -> Int32 { byCode[code] ?? other }

    /// The status for `error`: by its code, except that `INVALID_ARGUMENT` about data the
    /// command read (a record on stdin, which names it in `details["input"]`) is a data
    /// error, not a usage error: the library uses one code for a bad argument and a bad
    /// value, and only the CLI knows whether the value came from the command line.
    static func forError(_ error: AccordError) -> Int32 {
        // Invalid TOML exits 1, as TOML conformance harnesses (toml-test) expect of a
        // decoder, even though it arrived on stdin like other data errors.
        if error.code == .malformedTOML { return other }
        if error.code == .invalidArgument, error.details["input"] != nil { return dataError }
        return forCode(error.code)
    }
}

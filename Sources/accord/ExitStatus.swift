import AccordCRDT

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

    static let byCode: [ErrorCode: Int32] = [
        .invalidArgument: usage,
        .malformedUpdate: 65,
        .malformedMessage: 65,
        .malformedJSON: 65,
        .ioError: 74,
    ]

    static func forCode(_ code: ErrorCode) -> Int32 { byCode[code] ?? other }
}

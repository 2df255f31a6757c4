/// The rows of one statement's result, copied out of libpq's `PGresult` (binary
/// format), so the result can be freed at once.
public struct PostgresRows: Sendable {
    /// Each row's columns; nil is SQL NULL.
    public var rows: [[[UInt8]?]] = []
    /// Rows a command touched (`INSERT`, `UPDATE`, `DELETE`), 0 for others.
    public var affected: Int = 0

    /// The first column of the first row as a big-endian `bigint`, or nil for no row
    /// or NULL.
    public var firstInt64: Int64? {
        guard let first = rows.first?.first, let bytes = first else { return nil }
        return Self.int64(bytes)
    }

    /// A binary-format `bigint` (8 bytes, big-endian); nil for any other length.
    public static func int64(_ bytes: [UInt8]) -> Int64? {
        guard bytes.count == 8 else { return nil }
        return bytes.reduce(Int64(0)) { ($0 << 8) | Int64($1) }
    }
}

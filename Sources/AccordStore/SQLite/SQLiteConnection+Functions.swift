internal import CSQLite
public import AccordCRDT

extension SQLiteConnection {
    /// Defines the SQL function `name(text)` on this connection, answering with
    /// `transform` of its argument's UTF-8 bytes (the result must be UTF-8 too): NULL
    /// for NULL, and the argument's text for other values. Deterministic, so SQLite may
    /// use it in indexes and factor it out. Bytes, not `String`: a query may call it for
    /// every row, and building a `String` per row was most of such a query's time.
    ///
    /// Queries call Swift this way when SQL and Swift must agree exactly (case folding
    /// for records' `$containsText`, which SQLite's `lower()` does for ASCII only).
    public func defineTextFunction(
        _ name: String, _ transform: @escaping (UnsafeBufferPointer<UInt8>) -> [UInt8]
    ) throws(AccordError) {
        let box = Unmanaged.passRetained(TextFunction(transform)).toOpaque()
        let code = sqlite3_create_function_v2(
            handle, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, box,
            { context, count, arguments in
                guard let context, let user = sqlite3_user_data(context) else { return }
                let function = Unmanaged<TextFunction>.fromOpaque(user).takeUnretainedValue()
                guard count == 1, let argument = arguments?[0], sqlite3_value_type(argument) != SQLITE_NULL,
                      let pointer = sqlite3_value_text(argument)
                else {
                    sqlite3_result_null(context)
                    return
                }
                let output = function.transform(UnsafeBufferPointer(start: pointer, count: Int(sqlite3_value_bytes(argument))))
                output.withUnsafeBufferPointer { utf8 in
                    utf8.withMemoryRebound(to: CChar.self) { chars in
                        // A zero-length result still needs a non-null pointer, or SQLite returns NULL.
                        if let base = chars.baseAddress {
                            sqlite3_result_text(context, base, Int32(chars.count), accord_sqlite_transient())
                        } else {
                            sqlite3_result_text(context, "", 0, accord_sqlite_transient())
                        }
                    }
                }
            },
            nil, nil,
            { user in
                // SQLite calls this when the function is replaced or the connection closes.
                if let user { Unmanaged<TextFunction>.fromOpaque(user).release() }
            })
        // On failure SQLite has already called the destructor, which released the box.
        try SQLiteResult.check(code, handle, "defining SQL function \(name)")
    }
}

/// The Swift side of a text function, kept alive by SQLite through its user data.
private final class TextFunction {
    let transform: (UnsafeBufferPointer<UInt8>) -> [UInt8]
    init(_ transform: @escaping (UnsafeBufferPointer<UInt8>) -> [UInt8]) { self.transform = transform }
}

/// TOML 1.0.0: parse documents into ``TOMLTable``s and encode tables back to text.
///
/// ```swift
/// let table = try TOML.parse("title = \"Accord\"\n[owner]\nname = \"Ada\"\n")
/// table["owner"]?.tableValue?["name"]   // .string("Ada")
/// ```
public enum TOML {
    /// Parses a document.
    /// - Throws: ``TOMLError`` with the line and column of the first problem.
    public static func parse(_ text: String) throws(TOMLError) -> TOMLTable {
        var text = text
        // withUTF8 gives contiguous storage (copying a bridged string once, if needed).
        let result: Result<TOMLTable, TOMLError> = text.withUTF8 { buffer in
            var parser = Parser(buffer)
            do throws(TOMLError) { return .success(try parser.parseDocument()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Parses a document given as UTF-8 bytes; invalid UTF-8 is an error.
    /// - Throws: ``TOMLError`` with the line and column of the first problem.
    public static func parse(_ bytes: [UInt8]) throws(TOMLError) -> TOMLTable {
        let result: Result<TOMLTable, TOMLError> = bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(buffer)
            do throws(TOMLError) { return .success(try parser.parseDocument()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// The table as a TOML document that ``parse(_:)-(String)`` reads back as an equal
    /// table (see ``TOMLEncoder`` for the layout).
    public static func encode(_ table: TOMLTable) -> String {
        var encoder = TOMLEncoder()
        encoder.encodeDocument(table)
        return encoder.output
    }
}

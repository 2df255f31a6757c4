import Testing
import AccordCRDT

/// Error code strings are API (CLI output, server bodies, other SDKs): renaming one
/// must fail here.
@Suite struct ErrorCodeGoldenTests {
    @Test func everyCodeKeepsItsString() {
        let expected: [String] = [
            "MALFORMED_UPDATE", "MALFORMED_MESSAGE", "MALFORMED_JSON", "INDEX_OUT_OF_BOUNDS",
            "TYPE_MISMATCH", "INVALID_TYPE", "INVALID_ARGUMENT", "IO_ERROR", "REFUSED",
        ]
        let actual = ErrorCode.allCRDTCodes.map(\.rawValue)
        #expect(actual == expected)
    }

    @Test func errorsMatchByCodeInCatchClauses() throws {
        let doc = Doc()
        var matched = false
        do {
            try doc.applyUpdate([0x01, 0x02])
        } catch ErrorCode.malformedUpdate {
            matched = true
        } catch {
            matched = false
        }
        #expect(matched)
        let error = #expect(throws: AccordError.self) { try doc.getText("t").insert(5, "x") }
        #expect(error?.code == .indexOutOfBounds)
        #expect(error?.description.hasPrefix("INDEX_OUT_OF_BOUNDS: ") == true)
        _ = try doc.getMap("m")
        let mismatch = #expect(throws: AccordError.self) { try doc.getText("m") }
        #expect(mismatch?.code == .typeMismatch)
    }
}

import Testing
@testable import AccordCRDT

/// Embeds and format values travel as `JSON.stringify` text; numbers must read as
/// JavaScript prints them.
@Suite struct JSONNumberTests {
    @Test(arguments: [
        (1e20, "100000000000000000000"), (1e21, "1e+21"), (1152921504606846976, "1152921504606847000"),
        (1e-7, "1e-7"), (0.000001, "0.000001"), (123.456, "123.456"), (1.5e-10, "1.5e-10"), (Double.leastNonzeroMagnitude, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"), (-0.0, "0"), (0.1, "0.1"), (100, "100"),
        (1e16, "10000000000000000"), (-1.5, "-1.5"), (1.2345678901234568e20, "123456789012345680000"),
        (0.00001234, "0.00001234"), (1.234e-7, "1.234e-7"), (1e300, "1e+300"), (2.5e21, "2.5e+21"),
        (-1e-7, "-1e-7"), (0.5, "0.5"), (4.35, "4.35"),
    ] as [(Double, String)])
    func numbersPrintLikeJavaScript(value: Double, expected: String) {
        #expect(AnyValue.jsNumberText(value) == expected)
    }

    @Test func jsonRoundTripsStructuredValues() throws {
        let value: AnyValue = ["a": [1, 2.5, "x\n\"y\"", nil, true], "b": ["c": "ü😀"]]
        #expect(try AnyValue(jsonText: value.jsonText) == value)
        #expect(value.jsonText == #"{"a":[1,2.5,"x\n\"y\"",null,true],"b":{"c":"ü😀"}}"#)
    }

    @Test(arguments: ["", "{", "[1,", "tru", "\"abc", "01", "1.", "{\"a\" 1}", "[1 2]"])
    func malformedJSONThrowsCodedError(text: String) {
        let error = #expect(throws: AccordError.self) { try AnyValue(jsonText: text) }
        #expect(error?.code == .malformedJSON)
    }
}

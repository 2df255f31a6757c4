import AccordCRDT
import AccordDatabase
import Foundation
import Testing

/// Every typed accessor with its default and Couchbase Lite's conversions, chaining,
/// nested objects, and JSON round trips.
@Suite struct DocumentAccessorTests {
    @Test func absentKeysReadAsTheTypesDefault() {
        let doc = MutableDocument(id: "a")
        #expect(doc.string(forKey: "x") == nil)
        #expect(doc.int(forKey: "x") == 0)
        #expect(doc.int64(forKey: "x") == 0)
        #expect(doc.double(forKey: "x") == 0.0)
        #expect(doc.float(forKey: "x") == 0.0)
        #expect(doc.boolean(forKey: "x") == false)
        #expect(doc.date(forKey: "x") == nil)
        #expect(doc.dictionary(forKey: "x") == nil)
        #expect(doc.array(forKey: "x") == nil)
        #expect(doc.value(forKey: "x") == nil)
        #expect(doc["x"] == nil)
        #expect(!doc.contains(key: "x"))
        #expect(doc.count == 0 && doc.keys.isEmpty)
    }

    @Test func settersChainAndGettersReadBack() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123_9)
        let doc = MutableDocument(id: "a")
            .setString("Ann", forKey: "name").setInt(42, forKey: "age").setInt64(1 << 40, forKey: "big")
            .setDouble(2.5, forKey: "ratio").setFloat(1.5, forKey: "f").setBoolean(true, forKey: "ok")
            .setDate(date, forKey: "when").setValue(nil, forKey: "nothing")
        #expect(doc.string(forKey: "name") == "Ann")
        #expect(doc.int(forKey: "age") == 42)
        #expect(doc.int64(forKey: "big") == 1 << 40)
        #expect(doc.double(forKey: "ratio") == 2.5)
        #expect(doc.float(forKey: "f") == 1.5)
        #expect(doc.boolean(forKey: "ok"))
        // Dates are ISO-8601 text, rounded down to the millisecond.
        #expect(doc.string(forKey: "when") == "2023-11-14T22:13:20.123Z")
        #expect(doc.date(forKey: "when") == Date(timeIntervalSince1970: 1_700_000_000.123))
        #expect(doc.value(forKey: "nothing") is NSNull)
        #expect(doc.contains(key: "nothing"))
        #expect(doc.keys == ["age", "big", "f", "name", "nothing", "ok", "ratio", "when"])
        #expect(doc.count == 8)
        doc.removeValue(forKey: "name")
        #expect(!doc.contains(key: "name"))
    }

    @Test func numbersConvertAsCouchbaseLiteDoes() {
        let doc = MutableDocument(id: "a")
            .setDouble(3.9, forKey: "d").setDouble(-3.9, forKey: "neg").setInt(7, forKey: "i")
            .setBoolean(true, forKey: "t").setBoolean(false, forKey: "f").setString("12", forKey: "s")
            .setDouble(1e300, forKey: "huge").setInt(0, forKey: "zero")
            .setValue(["a": 1], forKey: "dict").setValue([1, 2], forKey: "list")
        #expect(doc.int(forKey: "d") == 3)  // truncated toward zero
        #expect(doc.int(forKey: "neg") == -3)
        #expect(doc.int64(forKey: "huge") == Int64.max)  // clamped, no trap
        #expect(doc.double(forKey: "i") == 7.0)
        #expect(doc.float(forKey: "d") == Float(3.9))
        #expect(doc.int(forKey: "t") == 1 && doc.int(forKey: "f") == 0)
        #expect(doc.double(forKey: "t") == 1.0)
        #expect(doc.int(forKey: "s") == 0)  // strings are not numbers
        #expect(doc.string(forKey: "i") == nil)  // nor numbers strings
        #expect(doc.boolean(forKey: "i") && !doc.boolean(forKey: "zero"))
        #expect(doc.boolean(forKey: "d") && doc.boolean(forKey: "s"))
        #expect(doc.boolean(forKey: "dict") && doc.boolean(forKey: "list"))
        #expect(!doc.boolean(forKey: "f") && !doc.boolean(forKey: "absent"))
        #expect(doc.date(forKey: "s") == nil)
    }

    @Test func nestedObjectsOfAMutableDocumentAreLive() throws {
        let doc = MutableDocument(id: "a")
        doc.setDictionary(MutableDictionaryObject().setString("Paris", forKey: "city"), forKey: "address")
        doc.dictionary(forKey: "address")?.setString("75001", forKey: "zip")
        doc.setArray(MutableArrayObject().addInt(1).addString("two"), forKey: "items")
        doc.array(forKey: "items")?.addDictionary(MutableDictionaryObject(data: ["k": true])).insertValue(0, at: 0)
        #expect(doc.dictionary(forKey: "address")?.string(forKey: "zip") == "75001")
        #expect(doc.toJSON() == #"{"address":{"city":"Paris","zip":"75001"},"items":[0,1,"two",{"k":true}]}"#)
        let items = try #require(doc.array(forKey: "items"))
        #expect(items.count == 4)
        #expect(items.int(at: 1) == 1 && items.string(at: 2) == "two" && items.dictionary(at: 3)?.boolean(forKey: "k") == true)
        #expect(items.int(at: 99) == 0 && items.value(at: -1) == nil)  // outside: the default, no trap
    }

    @Test func readOnlyCopiesDoNotShareWithTheirSource() {
        let inner = MutableDictionaryObject().setInt(1, forKey: "n")
        let frozen: DictionaryObject = inner.toMutable()
        let doc = MutableDocument(id: "a").setDictionary(frozen, forKey: "copy").setDictionary(inner, forKey: "live")
        inner.setInt(2, forKey: "n")
        #expect(doc.dictionary(forKey: "live")?.int(forKey: "n") == 2)
        #expect(doc.dictionary(forKey: "copy")?.int(forKey: "n") == 1)
    }

    @Test func jsonRoundTripsKeepTypesUnicodeAndNesting() throws {
        let json = #"{"big":18446744073709552000,"deep":[{"a":[{"b":[1,2.5,null]}]}],"ints":9007199254740991,"name":"Zoë","ünï🙂":"ok"}"#
        let doc = try MutableDocument(id: "a", json: json)
        #expect(doc.toJSON() == json)
        // Integers beyond 2^53 are doubles (printed as JavaScript prints them).
        #expect(try MutableDocument(json: #"{"n":18446744073709551616}"#).toJSON() == #"{"n":18446744073709552000}"#)
        #expect(doc.double(forKey: "big") == 18_446_744_073_709_551_616.0)
        #expect(doc.int64(forKey: "ints") == 9_007_199_254_740_991)
        #expect(doc.string(forKey: "ünï🙂") == "ok")
        let deep = try #require(doc.array(forKey: "deep")?.dictionary(at: 0)?.array(forKey: "a")?.dictionary(at: 0))
        #expect(deep.array(forKey: "b")?.double(at: 1) == 2.5)
        let plain = doc.toDictionary()
        #expect(plain["name"] as? String == "Zoë")
        let copy = MutableDocument(id: "b", data: plain)
        #expect(copy.toJSON() == json)
    }

    @Test func integersBeyondTwoToTheFiftyThreeAreStoredAsDoubles() {
        let doc = MutableDocument(id: "a").setInt64(9_007_199_254_740_993, forKey: "n")
        #expect(doc.toJSON() == #"{"n":9007199254740992}"#)
        #expect(doc.double(forKey: "n") == 9_007_199_254_740_992.0)
    }

    @Test func setJSONRefusesTextThatIsNotAnObjectAndKeepsTheProperties() throws {
        let doc = MutableDocument(id: "a").setInt(1, forKey: "n")
        let malformed = #expect(throws: AccordError.self) { try doc.setJSON("{nope") }
        #expect(malformed?.code == .malformedJSON)
        let notObject = #expect(throws: AccordError.self) { try doc.setJSON("[1]") }
        #expect(notObject?.code == .invalidArgument)
        #expect(doc.int(forKey: "n") == 1)
    }

    @Test func generatedIDsAreUUIDTextAndDistinct() {
        let a = MutableDocument(), b = MutableDocument()
        #expect(a.id != b.id)
        #expect(UUID(uuidString: a.id) != nil)
        #expect(MutableDocument(id: "fixed").id == "fixed")
    }

    @Test func toMutableCopiesAndKeepsTheID() {
        let doc = MutableDocument(id: "a").setValue(["x": [1]], forKey: "d")
        let copy = doc.toMutable()
        copy.dictionary(forKey: "d")?.array(forKey: "x")?.addInt(2)
        #expect(copy.id == "a")
        #expect(doc.toJSON() == #"{"d":{"x":[1]}}"#)
        #expect(copy.toJSON() == #"{"d":{"x":[1,2]}}"#)
    }

    /// Every array accessor, by index, with its default outside the array.
    @Test func arrayAccessorsSetGetConvertAndDefault() throws {
        let date = Date(timeIntervalSince1970: 86_400.5)
        let array = MutableArrayObject()
            .addString("s").addInt(1).addInt64(1 << 40).addDouble(2.5).addFloat(0.5).addBoolean(true).addDate(date)
            .addDictionary(MutableDictionaryObject(data: ["k": 1])).addArray(MutableArrayObject(data: [1, 2])).addValue(nil)
        #expect(array.count == 10)
        #expect(array.string(at: 0) == "s" && array.int(at: 1) == 1 && array.int64(at: 2) == 1 << 40)
        #expect(array.double(at: 3) == 2.5 && array.float(at: 4) == 0.5 && array.boolean(at: 5))
        #expect(array.date(at: 6) == date && array.string(at: 6) == "1970-01-02T00:00:00.500Z")
        #expect(array.dictionary(at: 7)?.int(forKey: "k") == 1 && array.array(at: 8)?.count == 2)
        #expect(array.value(at: 9) is NSNull && array[0] as? String == "s")
        #expect(array.int(at: 3) == 2 && array.double(at: 5) == 1 && array.boolean(at: 1))  // conversions
        for outside in [-1, 10, Int.max] {
            #expect(array.string(at: outside) == nil && array.int(at: outside) == 0 && array.double(at: outside) == 0)
            #expect(!array.boolean(at: outside) && array.date(at: outside) == nil && array.value(at: outside) == nil)
            #expect(array.dictionary(at: outside) == nil && array.array(at: outside) == nil && array.blob(at: outside) == nil)
        }
        array.setString("t", at: 0).setInt(7, at: 1).setInt64(8, at: 2).setDouble(9.5, at: 3).setFloat(1.5, at: 4)
            .setBoolean(false, at: 5).setDate(nil, at: 6).removeValue(at: 9).insertValue("first", at: 0)
        #expect(array.toJSON() == #"["first","t",7,8,9.5,1.5,false,null,{"k":1},[1,2]]"#)
        #expect(array.toArray().count == 10)
        try array.setJSON("[true, {\"a\": [1]}]")
        #expect(array.dictionary(at: 1)?.array(forKey: "a")?.int(at: 0) == 1)
        let notArray = #expect(throws: AccordError.self) { try array.setJSON("{}") }
        #expect(notArray?.code == .invalidArgument)
        let fresh = try MutableArrayObject(json: "[1]")
        #expect(fresh.toJSON() == "[1]")
    }

    @Test func dictionaryObjectsHaveTheSameAccessors() throws {
        let dictionary = try MutableDictionaryObject(json: #"{"n":3.7,"s":"x","b":false,"l":[1],"d":{"e":1}}"#)
        #expect(dictionary.int(forKey: "n") == 3 && dictionary.float(forKey: "n") == Float(3.7))
        #expect(dictionary.string(forKey: "s") == "x" && !dictionary.boolean(forKey: "b"))
        #expect(dictionary.array(forKey: "l")?.int(at: 0) == 1 && dictionary.dictionary(forKey: "d")?.int(forKey: "e") == 1)
        #expect(dictionary.keys == ["b", "d", "l", "n", "s"] && dictionary.count == 5 && dictionary.contains(key: "n"))
        #expect(dictionary["s"] as? String == "x")
        dictionary.setData(["only": 1])
        #expect(dictionary.toDictionary()["only"] as? Int == 1 && dictionary.count == 1)
        let frozen: DictionaryObject = dictionary
        #expect(frozen.toMutable().toJSON() == #"{"only":1}"#)
    }
}

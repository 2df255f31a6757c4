import AccordCRDT
import AccordRecords
import Foundation

/// Turns what an app hands a setter (`setValue(_:forKey:)`, `setData`, an array
/// literal) into a ``Property``: `String`, the integer and floating-point types, `Bool`,
/// `Date` (stored as `YYYY-MM-DDTHH:MM:SS.sssZ`, rounded down to the millisecond),
/// `NSNull`, `nil` (null), ``DictionaryObject``, ``ArrayObject``, `[String: Any]`,
/// `[Any]`, `AnyValue`. Anything else, NaN or an infinity is an `INVALID_VALUE` error.
enum PropertyInput {
    static func property(_ value: Any?, key: String) -> Result<Property, AccordError> {
        guard let value else { return .success(.scalar(.null)) }
        switch value {
        case let property as Property: return .success(property.mutableCopy())
        case let s as String: return .success(.scalar(.string(s)))
        case let b as Bool: return .success(.scalar(.bool(b)))
        case let i as Int: return .success(.scalar(NumberConversion.stored(Int64(i))))
        case let i as Int64: return .success(.scalar(NumberConversion.stored(i)))
        case let i as Int32: return .success(.scalar(.int(Int64(i))))
        case let i as Int16: return .success(.scalar(.int(Int64(i))))
        case let i as Int8: return .success(.scalar(.int(Int64(i))))
        case let i as UInt: return unsigned(UInt64(i))
        case let i as UInt64: return unsigned(i)
        case let i as UInt32: return .success(.scalar(.int(Int64(i))))
        case let i as UInt16: return .success(.scalar(.int(Int64(i))))
        case let i as UInt8: return .success(.scalar(.int(Int64(i))))
        case let d as Double: return double(d, key: key)
        case let f as Float: return double(Double(f), key: key)
        case let date as Date: return dateProperty(date, key: key)
        case is NSNull: return .success(.scalar(.null))
        case let blob as Blob: return .success(.blob(blob))
        case let dictionary as DictionaryObject: return .success(.dictionary(dictionary.toMutable()))
        case let array as ArrayObject: return .success(.array(array.toMutable()))
        case let any as AnyValue:
            if case .double(let d) = any, !d.isFinite { return double(d, key: key) }
            return .success(Property.stored(any, mutable: true))
        case let dictionary as [String: Any]:
            let object = MutableDictionaryObject()
            for (k, v) in dictionary { object.setValue(v, forKey: k) }
            return .success(.dictionary(object))
        case let items as [Any]:
            let array = MutableArrayObject()
            for item in items { array.addValue(item) }
            return .success(.array(array))
        default:
            return .failure(AccordError(
                .invalidValue, "property \"\(key)\": a \(type(of: value)) cannot be stored in a JSON document",
                details: ["key": key]))
        }
    }

    static func double(_ d: Double, key: String) -> Result<Property, AccordError> {
        guard d.isFinite else {
            return .failure(AccordError(
                .invalidValue, "property \"\(key)\": \(d) cannot be stored in a JSON document", details: ["key": key]))
        }
        return .success(.scalar(.double(d)))
    }

    static func dateProperty(_ date: Date, key: String) -> Result<Property, AccordError> {
        guard let text = ISODate.text(secondsSince1970: date.timeIntervalSince1970) else {
            return .failure(AccordError(
                .invalidValue, "property \"\(key)\": the date \(date) is outside the years 0000-9999",
                details: ["key": key]))
        }
        return .success(.scalar(.string(text)))
    }

    private static func unsigned(_ i: UInt64) -> Result<Property, AccordError> {
        i <= UInt64(Int64.max) ? .success(.scalar(NumberConversion.stored(Int64(i)))) : .success(.scalar(.double(Double(i))))
    }

    /// A date read back from a string property: the canonical form setters write, or any
    /// other ISO-8601 text (with or without fractions); nil for anything else.
    static func date(_ property: Property?) -> Date? {
        guard case .scalar(.string(let text)) = property else { return nil }
        if let seconds = ISODate.seconds(text) { return Date(timeIntervalSince1970: seconds) }
        let withFractions = ISO8601DateFormatter()
        withFractions.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = withFractions.date(from: text) { return date }
        return ISO8601DateFormatter().date(from: text)
    }
}

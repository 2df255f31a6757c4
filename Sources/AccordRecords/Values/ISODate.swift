/// The one date form records store: `YYYY-MM-DDTHH:MM:SS.sssZ`, what JavaScript's
/// `toISOString()` writes. One fixed-width UTC form means dates sort correctly as
/// strings (in SQLite and in memory alike); offsets or a varying number of fraction
/// digits would not.
package enum ISODate {
    static let length = 24

    static func isCanonical(_ text: String) -> Bool {
        // On the string's own UTF-8, with no copy: every date field of every saved
        // record is checked here.
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count == length else { return false }
            for index in digitPositions where !(0x30...0x39).contains(bytes[index]) { return false }
            guard bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54, bytes[13] == 0x3A, bytes[16] == 0x3A,
                bytes[19] == 0x2E, bytes[23] == 0x5A
            else { return false }
            func number(_ at: Int) -> Int { Int(bytes[at] - 0x30) * 10 + Int(bytes[at + 1] - 0x30) }
            return (1...12).contains(number(5)) && (1...31).contains(number(8)) && number(11) < 24 && number(14) < 60
                && number(17) < 60
        }
    }

    /// Where a canonical text has its digits.
    private static let digitPositions = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22]

    /// The canonical text of `secondsSince1970` (milliseconds kept, rounded down),
    /// for years 0000 through 9999.
    package static func text(secondsSince1970 seconds: Double) -> String? {
        guard seconds.isFinite else { return nil }
        return text(millisecondsSince1970: Int64((seconds * 1000).rounded(.down)))
    }

    /// Seconds since 1970 of a canonical text (nil for any other text).
    package static func seconds(_ text: String) -> Double? {
        guard isCanonical(text) else { return nil }
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64 { range.reduce(0) { $0 * 10 + Int64(bytes[$1] - 0x30) } }
        let milliseconds = millisecondsSince1970(
            year: number(0..<4), month: number(5..<7), day: number(8..<10), hour: number(11..<13),
            minute: number(14..<16), second: number(17..<19), millisecond: number(20..<23))
        return Double(milliseconds) / 1000
    }

    /// The canonical text of a calendar instant given by its parts and its offset from
    /// UTC in minutes (a TOML offset date-time, say); nil outside the years 0000-9999.
    static func text(
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, milliseconds: Int, offsetMinutes: Int
    ) -> String? {
        text(millisecondsSince1970: millisecondsSince1970(
            year: Int64(year), month: Int64(month), day: Int64(day), hour: Int64(hour),
            minute: Int64(minute - offsetMinutes), second: Int64(second), millisecond: Int64(milliseconds)))
    }

    /// The canonical text of an instant in whole milliseconds (exact: no floating point
    /// between the parts and the text).
    private static func text(millisecondsSince1970 milliseconds: Int64) -> String? {
        var days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        let inDay = milliseconds - days * 86_400_000
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        guard (0...9999).contains(year) else { return nil }
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(inDay / 3_600_000, 2)):"
            + "\(pad(inDay / 60000 % 60, 2)):\(pad(inDay / 1000 % 60, 2)).\(pad(inDay % 1000, 3))Z"
    }

    /// Milliseconds since 1970 of a UTC calendar instant (the inverse of `text`; minutes
    /// may be out of range, as when an offset is subtracted).
    private static func millisecondsSince1970(
        year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64, millisecond: Int64
    ) -> Int64 {
        // Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let days = era * 146_097 + yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear - 719_468
        return (((days * 24 + hour) * 60 + minute) * 60 + second) * 1000 + millisecond
    }
}

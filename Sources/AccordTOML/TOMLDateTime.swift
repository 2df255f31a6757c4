/// A TOML date, time or date-time, kept as written (fractional digits included) so
/// nothing is lost to a `Date`'s precision or a time zone database.
///
/// Which parts are present follows the ``TOMLValue`` case: local dates have no time,
/// local times no date, and only offset date-times have ``offsetMinutes``.
public struct TOMLDateTime: Sendable, Hashable, CustomStringConvertible {
    public var year: Int?
    public var month: Int?
    public var day: Int?
    public var hour: Int?
    public var minute: Int?
    public var second: Int?
    /// The digits after the decimal point, exactly as written ("5", "500", "123456789");
    /// empty when the seconds have no fraction.
    public var fraction: String
    /// Minutes east of UTC; nil for local values. `Z` is 0.
    public var offsetMinutes: Int?

    public init(
        year: Int? = nil, month: Int? = nil, day: Int? = nil,
        hour: Int? = nil, minute: Int? = nil, second: Int? = nil,
        fraction: String = "", offsetMinutes: Int? = nil
    ) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.fraction = fraction
        self.offsetMinutes = offsetMinutes
    }

    /// RFC 3339 text: `YYYY-MM-DD`, `HH:MM:SS[.frac]`, or both joined by `T`, then `Z`
    /// or `±HH:MM` for offset date-times. TOML also allows a space or a lowercase `t`
    /// between date and time and a lowercase `z`; this is the one canonical spelling.
    public var text: String {
        var out = ""
        if let year, let month, let day {
            out += Self.pad(year, 4) + "-" + Self.pad(month, 2) + "-" + Self.pad(day, 2)
        }
        if let hour, let minute, let second {
            if !out.isEmpty { out += "T" }
            out += Self.pad(hour, 2) + ":" + Self.pad(minute, 2) + ":" + Self.pad(second, 2)
            if !fraction.isEmpty { out += "." + fraction }
        }
        if let offsetMinutes {
            if offsetMinutes == 0 {
                out += "Z"
            } else {
                let magnitude = abs(offsetMinutes)
                out += (offsetMinutes < 0 ? "-" : "+") + Self.pad(magnitude / 60, 2) + ":" + Self.pad(magnitude % 60, 2)
            }
        }
        return out
    }

    public var description: String { text }

    static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// Days in `month` of `year` in the proleptic Gregorian calendar (RFC 3339 §5.7).
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

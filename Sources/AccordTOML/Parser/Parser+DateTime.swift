/// RFC 3339 dates and times as TOML 1.0 allows them: offset and local date-times, local
/// dates, local times; `T`, `t` or a space between date and time; seconds required;
/// any number of fractional digits (kept as written). Calendar dates are checked
/// (February 29 only in leap years).
extension Parser {
    /// `dddd-` starts a date, `dd:` a time; anything else starting with a digit is a number.
    func looksLikeDateOrTime() -> Bool {
        if Self.isDigit(peek(1)) && peek(2) == UInt8(ascii: ":") { return Self.isDigit(peek()) }
        return Self.isDigit(peek()) && Self.isDigit(peek(1)) && Self.isDigit(peek(2)) && Self.isDigit(peek(3))
            && peek(4) == UInt8(ascii: "-")
    }

    mutating func parseDateTime() throws(TOMLError) -> TOMLValue {
        let start = pos
        if peek(2) == UInt8(ascii: ":") {
            var time = TOMLDateTime()
            try parseTime(into: &time)
            try checkDateTimeEnd(start)
            return .localTime(time)
        }
        var value = TOMLDateTime()
        let year = try fixedDigits(4, "year")
        try expectByte(UInt8(ascii: "-"), "'-' after the year")
        let month = try fixedDigits(2, "month")
        try expectByte(UInt8(ascii: "-"), "'-' after the month")
        let dayStart = pos
        let day = try fixedDigits(2, "day")
        guard (1...12).contains(month) else { throw error("invalid month \(month) in date", at: start + 5) }
        guard day >= 1 && day <= TOMLDateTime.daysIn(month: month, year: year) else {
            throw error("invalid date: \(TOMLDateTime.pad(year, 4))-\(TOMLDateTime.pad(month, 2)) has no day \(day)", at: dayStart)
        }
        value.year = year
        value.month = month
        value.day = day
        let sep = peek()
        let timeFollows = sep == UInt8(ascii: "T") || sep == UInt8(ascii: "t")
            || (sep == UInt8(ascii: " ") && Self.isDigit(peek(1)) && Self.isDigit(peek(2)) && peek(3) == UInt8(ascii: ":"))
        guard timeFollows else {
            try checkDateTimeEnd(start)
            return .localDate(value)
        }
        pos += 1
        try parseTime(into: &value)
        switch peek() {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            pos += 1
            value.offsetMinutes = 0
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let negative = peek() == UInt8(ascii: "-")
            pos += 1
            let hourAt = pos
            let hours = try fixedDigits(2, "offset hour")
            try expectByte(UInt8(ascii: ":"), "':' in time offset")
            let minutes = try fixedDigits(2, "offset minute")
            guard hours <= 23, minutes <= 59 else { throw error("invalid time offset", at: hourAt) }
            value.offsetMinutes = (negative ? -1 : 1) * (hours * 60 + minutes)
        default:
            try checkDateTimeEnd(start)
            return .localDateTime(value)
        }
        try checkDateTimeEnd(start)
        return .offsetDateTime(value)
    }

    /// `HH:MM:SS[.fraction]`.
    private mutating func parseTime(into value: inout TOMLDateTime) throws(TOMLError) {
        let start = pos
        let hour = try fixedDigits(2, "hour")
        try expectByte(UInt8(ascii: ":"), "':' after the hour")
        let minute = try fixedDigits(2, "minute")
        guard peek() == UInt8(ascii: ":") else {
            throw error("expected ':' and seconds after the minute (seconds are required in TOML 1.0), found \(describe(pos))")
        }
        pos += 1
        let second = try fixedDigits(2, "second")
        guard hour <= 23 else { throw error("invalid hour \(hour) in time", at: start) }
        guard minute <= 59 else { throw error("invalid minute \(minute) in time", at: start + 3) }
        guard second <= 59 else { throw error("invalid second \(second) in time", at: start + 6) }
        value.hour = hour
        value.minute = minute
        value.second = second
        if peek() == UInt8(ascii: ".") {
            pos += 1
            let fracStart = pos
            while Self.isDigit(peek()) { pos += 1 }
            guard pos > fracStart else { throw error("expected digits after '.' in time, found \(describe(pos))") }
            value.fraction = String(decoding: UnsafeBufferPointer(rebasing: bytes[fracStart..<pos]), as: UTF8.self)
        }
    }

    private mutating func fixedDigits(_ count: Int, _ what: String) throws(TOMLError) -> Int {
        var v = 0
        for _ in 0..<count {
            let b = peek()
            guard Self.isDigit(b) else { throw error("expected a digit in the \(what), found \(describe(pos))") }
            v = v * 10 + Int(b - UInt8(ascii: "0"))
            pos += 1
        }
        return v
    }

    private mutating func expectByte(_ b: UInt8, _ what: String) throws(TOMLError) {
        guard peek() == b else { throw error("expected \(what), found \(describe(pos))") }
        pos += 1
    }

    private mutating func checkDateTimeEnd(_ start: Int) throws(TOMLError) {
        let b = peek()
        if Key.isBare(b) || b == UInt8(ascii: ".") || b == UInt8(ascii: ":") || b == UInt8(ascii: "+") {
            throw error("invalid date or time \(describeWord(start))", at: start)
        }
    }
}

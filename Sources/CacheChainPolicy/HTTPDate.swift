public import Foundation

/// HTTP-date parsing and formatting (RFC 9110 §5.6.7), without `DateFormatter` or locales.
///
/// All three formats are accepted: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850
/// form (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`). Anything else —
/// including `0` and `-1`, which servers send in `Expires` — is `nil`, which callers read as
/// "already expired" (RFC 9111 §5.3). Two-digit years 70–99 are 19xx and 00–69 are 20xx.
public enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let shortDays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let longDays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// Parses an HTTP-date.
    /// - Parameter value: A field value such as `Sun, 06 Nov 1994 08:49:37 GMT`.
    /// - Returns: The instant, or `nil` when the value is not a valid HTTP-date.
    public static func parse(_ value: String) -> Date? {
        // The form every sender generates, read byte by byte (every hit reads the stored `Date`).
        if let date = value.utf8.withContiguousStorageIfAvailable(parseIMFFixdate) ?? nil { return date }
        guard value.utf8.count <= 64 else { return nil }
        let tokens = value.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }).map(String.init)
        if tokens.count == 6, value.contains(","), shortDays.contains(tokens[0].lowercased()), tokens[5] == "GMT" {
            // IMF-fixdate: day-name "," SP DD SP Mon SP YYYY SP hh:mm:ss SP GMT
            guard tokens[1].count == 2, tokens[3].count == 4 else { return nil }
            return make(day: tokens[1], month: tokens[2], year: tokens[3], time: tokens[4])
        }
        if tokens.count == 4, value.contains(","), longDays.contains(tokens[0].lowercased()), tokens[3] == "GMT" {
            // rfc850-date: day-name-l "," SP DD-Mon-YY SP hh:mm:ss SP GMT
            let parts = tokens[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, parts[0].count == 2, parts[2].count == 2, let short = Int(parts[2]) else { return nil }
            let year = short < 70 ? 2000 + short : 1900 + short
            return make(day: parts[0], month: parts[1], year: String(year), time: tokens[2])
        }
        if tokens.count == 5, !value.contains(","), shortDays.contains(tokens[0].lowercased()) {
            // asctime-date: day-name SP Mon SP ( 2DIGIT / SP 1DIGIT ) SP hh:mm:ss SP YYYY
            guard tokens[4].count == 4 else { return nil }
            return make(day: tokens[2], month: tokens[1], year: tokens[4], time: tokens[3])
        }
        return nil
    }

    /// Formats an instant as an IMF-fixdate, the only format senders may generate.
    /// - Parameter date: The instant (sub-second parts are dropped).
    /// - Returns: E.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func format(_ date: Date) -> String {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        let days = Int((Double(total) / 86_400).rounded(.down))
        let secondsOfDay = total - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        let weekday = ((days % 7) + 7 + 3) % 7  // 1970-01-01 was a Thursday (index 3 from Monday)
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(names[weekday]), \(two(day)) \(monthNames[month - 1]) \(yearText) "
            + "\(two(secondsOfDay / 3600)):\(two(secondsOfDay / 60 % 60)):\(two(secondsOfDay % 60)) GMT"
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT` exactly (names in any case), or `nil` for anything else — which the
    /// general parser then reads.
    private static func parseIMFFixdate(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == UInt8(ascii: " "), bytes[7] == UInt8(ascii: " "),
            bytes[11] == UInt8(ascii: " "), bytes[16] == UInt8(ascii: " "), bytes[19] == UInt8(ascii: ":"),
            bytes[22] == UInt8(ascii: ":"), bytes[25] == UInt8(ascii: " "), bytes[26] == UInt8(ascii: "G"),
            bytes[27] == UInt8(ascii: "M"), bytes[28] == UInt8(ascii: "T"),
            shortDayCodes.contains(code(bytes, at: 0)),
            let monthIndex = monthCodes.firstIndex(of: code(bytes, at: 8)),
            let day = number(bytes, 5, 7), let year = number(bytes, 12, 16),
            let hour = number(bytes, 17, 19), let minute = number(bytes, 20, 22), let second = number(bytes, 23, 25)
        else { return nil }
        return make(year: year, month: monthIndex + 1, day: day, hour: hour, minute: minute, second: second)
    }

    /// The three letters at `offset`, lowercased, as one number (`"Nov"` → `0x6E6F76`): a name is then
    /// found with integer comparisons.
    private static func code(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt32 {
        UInt32(bytes[offset] | 0x20) << 16 | UInt32(bytes[offset + 1] | 0x20) << 8 | UInt32(bytes[offset + 2] | 0x20)
    }

    /// ``code(_:at:)`` of a lowercase three-letter name.
    private static func code(_ name: String) -> UInt32 {
        name.utf8.reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static let shortDayCodes = shortDays.map(code)
    private static let monthCodes = months.map(code)

    /// The decimal number in `bytes[start..<end]`, all digits.
    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int? {
        var value = 0
        for index in start..<end {
            let digit = Int(bytes[index]) - 0x30
            guard digit >= 0, digit <= 9 else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, UTC)

    private static func make(day: String, month: String, year: String, time: String) -> Date? {
        guard let dayValue = digits(day), let yearValue = digits(year),
            let monthIndex = months.firstIndex(of: month.lowercased()), month.count == 3
        else { return nil }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
            let hour = digits(clock[0]), let minute = digits(clock[1]), let second = digits(clock[2])
        else { return nil }
        return make(year: yearValue, month: monthIndex + 1, day: dayValue, hour: hour, minute: minute, second: second)
    }

    private static func make(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Date? {
        guard hour < 24, minute < 60, second <= 60, year >= 1, day >= 1, day <= daysInMonth(month, year: year) else { return nil }
        let days = self.days(fromCivil: year, month, day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func digits(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 4, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    private static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 for a civil date (Howard Hinnant's algorithm).
    private static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day count since 1970-01-01.
    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

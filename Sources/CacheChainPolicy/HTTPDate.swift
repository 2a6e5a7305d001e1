public import FoundationEssentials

/// HTTP-date parsing and formatting (RFC 9110 §5.6.7), without `DateFormatter` or locales.
///
/// All three formats are accepted, each exactly as its grammar writes it: IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`) and
/// asctime (`Sun Nov  6 08:49:37 1994`, where a one-digit day is padded with a space). One space separates
/// the tokens: a doubled space or a tab makes the value invalid. Day names, month names and `GMT` are
/// matched case-insensitively, as RFC 9111 §4.2 has cache recipients read dates. Anything else — including
/// `0` and `-1`, which servers send in `Expires` — is `nil`, which callers read as "already expired"
/// (RFC 9111 §5.3). Two-digit years 70–99 are 19xx and 00–69 are 20xx. Spaces and tabs around the whole
/// value (a field value's optional whitespace) are ignored.
public enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let shortDays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let shortDayBytes = Array(shortDays.joined().utf8)
    private static let monthBytes = Array(months.joined().utf8)
    private static let longDays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// Parses an HTTP-date.
    /// - Parameter value: A field value such as `Sun, 06 Nov 1994 08:49:37 GMT`.
    /// - Returns: The instant, or `nil` when the value is not a valid HTTP-date.
    public static func parse(_ value: String) -> Date? {
        // The form every sender generates, read byte by byte (every hit reads the stored `Date`).
        if let date = value.utf8.withContiguousStorageIfAvailable(parseIMFFixdate) ?? nil { return date }
        guard value.utf8.count <= 64 else { return nil }
        var text = value
        return text.withUTF8 { bytes in
            var start = 0, end = bytes.count
            while start < end, bytes[start] == space || bytes[start] == tab { start += 1 }
            while end > start, bytes[end - 1] == space || bytes[end - 1] == tab { end -= 1 }
            let value = UnsafeBufferPointer(rebasing: bytes[start..<end])
            return parseIMFFixdate(value) ?? parseRFC850Date(value) ?? parseAsctimeDate(value)
        }
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
        if (0...9999).contains(year) {
            // Every stored response without `Date` gets one (RFC 9110 §6.6.1): written byte by byte, no interpolation.
            return String(unsafeUninitializedCapacity: 29) { bytes in
                func put(_ names: [UInt8], _ index: Int, at offset: Int) {
                    bytes[offset] = names[index * 3]
                    bytes[offset + 1] = names[index * 3 + 1]
                    bytes[offset + 2] = names[index * 3 + 2]
                }
                func digits(_ value: Int, _ count: Int, at offset: Int) {
                    var value = value
                    for index in stride(from: offset + count - 1, through: offset, by: -1) {
                        bytes[index] = UInt8(ascii: "0") + UInt8(value % 10)
                        value /= 10
                    }
                }
                put(shortDayBytes, weekday, at: 0)
                bytes[3] = UInt8(ascii: ",")
                bytes[4] = space
                digits(day, 2, at: 5)
                bytes[7] = space
                put(monthBytes, month - 1, at: 8)
                bytes[11] = space
                digits(year, 4, at: 12)
                bytes[16] = space
                digits(secondsOfDay / 3600, 2, at: 17)
                bytes[19] = UInt8(ascii: ":")
                digits(secondsOfDay / 60 % 60, 2, at: 20)
                bytes[22] = UInt8(ascii: ":")
                digits(secondsOfDay % 60, 2, at: 23)
                bytes[25] = space
                bytes[26] = UInt8(ascii: "G")
                bytes[27] = UInt8(ascii: "M")
                bytes[28] = UInt8(ascii: "T")
                return 29
            }
        }
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(shortDays[weekday]), \(two(day)) \(months[month - 1]) \(yearText) "
            + "\(two(secondsOfDay / 3600)):\(two(secondsOfDay / 60 % 60)):\(two(secondsOfDay % 60)) GMT"
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT` exactly (names in any case), or `nil` for anything else — which the
    /// general parser then reads.
    private static func parseIMFFixdate(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == UInt8(ascii: " "), bytes[7] == UInt8(ascii: " "),
            bytes[11] == UInt8(ascii: " "), bytes[16] == UInt8(ascii: " "), bytes[19] == UInt8(ascii: ":"),
            bytes[25] == UInt8(ascii: " "), code(bytes, at: 26) == gmtCode,
            shortDayCodes.contains(code(bytes, at: 0)),
            let monthIndex = monthCodes.firstIndex(of: code(bytes, at: 8)),
            let day = number(bytes, 5, 7), let year = number(bytes, 12, 16),
            let (hour, minute, second) = timeOfDay(bytes, at: 17)
        else { return nil }
        return make(year: year, month: monthIndex + 1, day: day, hour: hour, minute: minute, second: second)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`: day-name-l "," SP DD "-" Mon "-" YY SP hh:mm:ss SP GMT.
    private static func parseRFC850Date(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")), comma >= 6, bytes.count == comma + 24,
            longDays.contains(lowercasedLetters(bytes, 0, comma) ?? ""),
            bytes[comma + 1] == space, bytes[comma + 4] == UInt8(ascii: "-"), bytes[comma + 8] == UInt8(ascii: "-"),
            bytes[comma + 11] == space, bytes[comma + 20] == space, code(bytes, at: comma + 21) == gmtCode,
            let day = number(bytes, comma + 2, comma + 4),
            let monthIndex = monthCodes.firstIndex(of: code(bytes, at: comma + 5)),
            let shortYear = number(bytes, comma + 9, comma + 11),
            let (hour, minute, second) = timeOfDay(bytes, at: comma + 12)
        else { return nil }
        let year = shortYear < 70 ? 2000 + shortYear : 1900 + shortYear
        return make(year: year, month: monthIndex + 1, day: day, hour: hour, minute: minute, second: second)
    }

    /// `Sun Nov  6 08:49:37 1994`: day-name SP Mon SP ( DD / SP D ) SP hh:mm:ss SP YYYY.
    private static func parseAsctimeDate(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count == 24, bytes[3] == space, bytes[7] == space, bytes[10] == space, bytes[19] == space,
            shortDayCodes.contains(code(bytes, at: 0)),
            let monthIndex = monthCodes.firstIndex(of: code(bytes, at: 4)),
            let day = bytes[8] == space ? number(bytes, 9, 10) : number(bytes, 8, 10),
            let (hour, minute, second) = timeOfDay(bytes, at: 11),
            let year = number(bytes, 20, 24)
        else { return nil }
        return make(year: year, month: monthIndex + 1, day: day, hour: hour, minute: minute, second: second)
    }

    /// `hh:mm:ss` at `offset`.
    private static func timeOfDay(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> (Int, Int, Int)? {
        guard bytes[offset + 2] == UInt8(ascii: ":"), bytes[offset + 5] == UInt8(ascii: ":"),
            let hour = number(bytes, offset, offset + 2), let minute = number(bytes, offset + 3, offset + 5),
            let second = number(bytes, offset + 6, offset + 8)
        else { return nil }
        return (hour, minute, second)
    }

    /// The ASCII letters in `bytes[start..<end]`, lowercased, or `nil` when another byte is among them.
    private static func lowercasedLetters(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String? {
        var letters: [UInt8] = []
        for byte in bytes[start..<end] {
            let lower = byte | 0x20
            guard lower >= UInt8(ascii: "a"), lower <= UInt8(ascii: "z") else { return nil }
            letters.append(lower)
        }
        return String(decoding: letters, as: UTF8.self)
    }

    /// The three letters at `offset`, lowercased, as one number (`"Nov"` → `0x6E6F76`): a name is then
    /// found with integer comparisons.
    private static func code(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt32 {
        UInt32(bytes[offset] | 0x20) << 16 | UInt32(bytes[offset + 1] | 0x20) << 8 | UInt32(bytes[offset + 2] | 0x20)
    }

    /// ``code(_:at:)`` of a three-letter name.
    private static func code(_ name: String) -> UInt32 {
        name.utf8.reduce(0) { $0 << 8 | UInt32($1 | 0x20) }
    }

    private static let shortDayCodes = shortDays.map(code)
    private static let monthCodes = months.map(code)
    private static let gmtCode = code("gmt")
    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")

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

    private static func make(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Date? {
        guard hour < 24, minute < 60, second <= 60, year >= 1, day >= 1, day <= daysInMonth(month, year: year) else { return nil }
        let days = self.days(fromCivil: year, month, day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
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

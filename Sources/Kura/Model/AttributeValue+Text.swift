import Foundation

extension AttributeValue {
    /// The value as text that reads back as exactly the same value with
    /// ``init(text:as:)``: what `kura export` writes and `kura import` reads.
    ///
    /// - Booleans `true`/`false`; integers in decimal.
    /// - Doubles and floats in their shortest form that reads back to the
    ///   same bits (`0.1`, `1e-300`), `nan`, `inf`, `-inf`.
    /// - Decimals in full (`12.50`, `NaN`).
    /// - Dates in ISO 8601, UTC, with as many fractional digits as it takes
    ///   to give back the same `Double` of seconds (`2026-11-23T08:30:00.123456Z`);
    ///   a date outside the years 1–9999 as seconds since 2001-01-01.
    /// - UUIDs and URLs as their strings, data as base64, strings as they are.
    public var text: String {
        switch self {
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .double(let value): value.isNaN ? "nan" : value.description
        case .float(let value): value.isNaN ? "nan" : value.description
        case .decimal(let value): value.description
        case .string(let value): value
        case .date(let value): ExactDate.text(value)
        case .uuid(let value): value.uuidString
        case .data(let value): value.base64EncodedString()
        case .url(let value): value.absoluteString
        }
    }

    /// Reads `text` as a value of `type`, strictly: the whole text must be
    /// a value of that type, in the form ``text`` writes. Booleans also
    /// take `yes`/`no` and `1`/`0`; dates any ISO 8601 date with a time zone,
    /// a calendar date (midnight UTC), or seconds since 2001-01-01.
    ///
    /// - Returns: `nil` when `text` isn't a value of `type`.
    public init?(text: String, as type: AttributeType) {
        switch type {
        case .string:
            self = .string(text)
        case .int16, .int32, .int64:
            guard let number = Int64(text), let value = AttributeValue.int(number).converted(to: type) else { return nil }
            self = value
        case .double:
            guard let number = Double(text) else { return nil }
            self = .double(number)
        case .float:
            guard let number = Float(text) else { return nil }
            self = .float(number)
        case .decimal:
            guard let number = DecimalText.parseWhole(text) else { return nil }
            self = .decimal(number)
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "1": self = .bool(true)
            case "false", "no", "0": self = .bool(false)
            default: return nil
            }
        case .date:
            guard let date = ExactDate.parse(text) else { return nil }
            self = .date(date)
        case .uuid:
            guard let uuid = UUID(uuidString: text) else { return nil }
            self = .uuid(uuid)
        case .url:
            guard !text.isEmpty, let url = URL(string: text) else { return nil }
            self = .url(url)
        case .data:
            guard let data = Data(base64Encoded: text) else { return nil }
            self = .data(data)
        }
    }
}

/// Dates as ISO 8601 text that keeps every bit of the `Double` of seconds
/// since 2001: the fraction is written as the exact decimal digits of the
/// shortest text of the `Double` (what `description` gives, which reads back
/// to the same bits), and read back by putting those digits together again
/// as text for `Double(_:)`, never through binary arithmetic. The calendar
/// arithmetic is done here (days to a proleptic Gregorian date, UTC), which
/// is also about twenty times faster than Foundation's ISO 8601 style.
enum ExactDate {
    /// The years ISO 8601 text is written for; other dates are written as seconds.
    private static let writtenRange: ClosedRange<Double> = -63_113_904_000 ... 252_423_993_599  // 0001-01-01 … 9999-12-31
    private static let unixOffset: Int64 = 978_307_200  // 1970-01-01 to 2001-01-01

    static func text(_ date: Date) -> String {
        let seconds = date.timeIntervalSinceReferenceDate
        let shortest = seconds.description
        let utf8 = shortest.utf8
        guard writtenRange.contains(seconds), !utf8.contains(UInt8(ascii: "e")) else {
            return seconds.isNaN ? "nan" : shortest
        }
        // Split "-12.25" into whole seconds -13 and fraction digits "75".
        let dot = utf8.firstIndex(of: UInt8(ascii: ".")) ?? utf8.endIndex
        guard var whole = Int64(Substring(utf8[..<dot])) else { return shortest }
        var digits = dot == utf8.endIndex ? "" : String(Substring(utf8[utf8.index(after: dot)...]))
        if digits.utf8.allSatisfy({ $0 == UInt8(ascii: "0") }) { digits = "" }
        if !digits.isEmpty && seconds < 0 {
            whole -= 1
            digits = complement(digits)
        }
        var text = civilText(secondsSince1970: whole + unixOffset)
        if !digits.isEmpty { text += "." + digits }
        return text + "Z"
    }

    /// `1 - 0.digits` as digits: "25" → "75", "001" → "999"; trailing zeros dropped.
    private static func complement(_ digits: String) -> String {
        var result = Array(digits.utf8.map { 9 - Int($0 - UInt8(ascii: "0")) })
        var position = result.count - 1
        while position >= 0 {  // add one in the last place
            result[position] += 1
            if result[position] < 10 { break }
            result[position] = 0
            position -= 1
        }
        while result.last == 0 { result.removeLast() }
        return String(result.map { Character(String($0)) })
    }

    /// `YYYY-MM-DDTHH:MM:SS` for seconds since 1970, UTC (days to civil date after Hinnant).
    private static func civilText(secondsSince1970 seconds: Int64) -> String {
        var days = seconds / 86_400
        var time = seconds % 86_400
        if time < 0 {
            time += 86_400
            days -= 1
        }
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        // Years 1…9999 only (writtenRange): four digits.
        return String(unsafeUninitializedCapacity: 19) { buffer in
            func put(_ value: Int64, _ count: Int, at start: Int) {
                var rest = value
                for position in stride(from: start + count - 1, through: start, by: -1) {
                    buffer[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            put(year, 4, at: 0)
            buffer[4] = UInt8(ascii: "-")
            put(month, 2, at: 5)
            buffer[7] = UInt8(ascii: "-")
            put(day, 2, at: 8)
            buffer[10] = UInt8(ascii: "T")
            put(time / 3600, 2, at: 11)
            buffer[13] = UInt8(ascii: ":")
            put(time / 60 % 60, 2, at: 14)
            buffer[16] = UInt8(ascii: ":")
            put(time % 60, 2, at: 17)
            return 19
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    private static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let adjustedYear = month <= 2 ? year - 1 : year
        let era = (adjustedYear >= 0 ? adjustedYear : adjustedYear - 399) / 400
        let yearOfEra = adjustedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// ISO 8601 with a time zone and any number of fractional digits, a
    /// calendar date alone (midnight UTC), or seconds since 2001.
    static func parse(_ text: String) -> Date? {
        if let date = parseDateTime(Array(text.utf8)) { return date }  // the usual form, first
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed) { return Date(timeIntervalSinceReferenceDate: seconds) }
        if let date = parseDateTime(Array(trimmed.utf8)) { return date }
        if trimmed.utf8.count == 10, let date = parseDateTime(Array((trimmed + "T00:00:00Z").utf8)) { return date }
        return nil
    }

    /// `YYYY-MM-DDTHH:MM:SS[.digits](Z|±HH:MM|±HHMM)`, checked field by field.
    private static func parseDateTime(_ bytes: [UInt8]) -> Date? {
        var position = 0
        func number(_ count: Int) -> Int64? {
            guard position + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[position..<(position + count)] {
                guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            position += count
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard position < bytes.count, characters.utf8.contains(bytes[position]) else { return false }
            position += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2), expect("Tt "),
              let hour = number(2), expect(":"), let minute = number(2), expect(":"), let second = number(2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        // The day must exist: 2026-02-30 comes back as another date.
        guard civilText(secondsSince1970: days * 86_400).hasPrefix(String(decoding: bytes[0..<10], as: UTF8.self)) else { return nil }
        var digits = ""
        if position < bytes.count && bytes[position] == UInt8(ascii: ".") {
            position += 1
            let start = position
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") { position += 1 }
            guard position > start else { return nil }
            digits = String(decoding: bytes[start..<position], as: UTF8.self)
        }
        var offset: Int64 = 0
        guard position < bytes.count else { return nil }
        if bytes[position] == UInt8(ascii: "Z") || bytes[position] == UInt8(ascii: "z") {
            position += 1
        } else {
            let sign: Int64 = bytes[position] == UInt8(ascii: "-") ? -1 : 1
            guard expect("+-"), let hours = number(2) else { return nil }
            _ = expect(":")
            guard let minutes = number(2), hours < 24, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard position == bytes.count else { return nil }
        let whole = days * 86_400 + hour * 3600 + minute * 60 + second - offset - unixOffset
        if digits.allSatisfy({ $0 == "0" }) { return Date(timeIntervalSinceReferenceDate: Double(whole)) }
        // whole + 0.digits, as text: for a negative whole, -(|whole| - 1).(1 - 0.digits).
        let text = whole >= 0 ? "\(whole).\(digits)" : "-\(-whole - 1).\(complement(digits))"
        return Double(text).map { Date(timeIntervalSinceReferenceDate: $0) }
    }
}

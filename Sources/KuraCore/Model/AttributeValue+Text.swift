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
        guard writtenRange.contains(seconds) else { return seconds.isNaN ? "nan" : seconds.description }
        // Whole seconds have no fraction to write (and no text to make first).
        if seconds.rounded(.down) == seconds { return isoText(secondsSince1970: Int64(seconds) + unixOffset, fraction: []) }
        var shortest = seconds.description
        // Split "-12.25" into whole seconds -13 and fraction digits "75",
        // straight from the bytes.
        let parts: (whole: Int64, fraction: [UInt8])? = shortest.withUTF8 { utf8 in
            guard !utf8.contains(UInt8(ascii: "e")), let dot = utf8.firstIndex(of: UInt8(ascii: ".")) else { return nil }
            let negative = utf8.first == UInt8(ascii: "-")
            var whole: Int64 = 0
            for byte in utf8[(negative ? 1 : 0)..<dot] { whole = whole * 10 + Int64(byte &- UInt8(ascii: "0")) }
            if negative { whole = -whole }
            var fraction = Array(utf8[(dot + 1)...])
            while fraction.last == UInt8(ascii: "0") { fraction.removeLast() }
            if !fraction.isEmpty && seconds < 0 {
                whole -= 1
                fraction = complement(fraction)
            }
            return (whole, fraction)
        }
        guard let parts else { return shortest }
        return isoText(secondsSince1970: parts.whole + unixOffset, fraction: parts.fraction)
    }

    /// `1 - 0.digits` as digits: "25" → "75", "001" → "999"; trailing zeros dropped.
    private static func complement(_ digits: [UInt8]) -> [UInt8] {
        var result = digits.map { 9 - Int($0 &- UInt8(ascii: "0")) }
        var position = result.count - 1
        while position >= 0 {  // add one in the last place
            result[position] += 1
            if result[position] < 10 { break }
            result[position] = 0
            position -= 1
        }
        while result.last == 0 { result.removeLast() }
        return result.map { UInt8(ascii: "0") + UInt8($0) }
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fraction]Z` for seconds since 1970, UTC (days
    /// to civil date after Hinnant), made in one buffer.
    private static func isoText(secondsSince1970 seconds: Int64, fraction: [UInt8]) -> String {
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
        let length = 19 + (fraction.isEmpty ? 0 : 1 + fraction.count) + 1
        return String(unsafeUninitializedCapacity: length) { buffer in
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
            var end = 19
            if !fraction.isEmpty {
                buffer[end] = UInt8(ascii: ".")
                for (offset, digit) in fraction.enumerated() { buffer[end + 1 + offset] = digit }
                end += 1 + fraction.count
            }
            buffer[end] = UInt8(ascii: "Z")
            return end + 1
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
        var text = text
        // The usual form first, straight from the string's bytes.
        if let date = text.withUTF8({ parseDateTime($0) }) { return date }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed) { return Date(timeIntervalSinceReferenceDate: seconds) }
        let bytes = Array(trimmed.utf8)
        if let date = bytes.withUnsafeBufferPointer({ parseDateTime($0) }) { return date }
        if bytes.count == 10, let date = Array(bytes + "T00:00:00Z".utf8).withUnsafeBufferPointer({ parseDateTime($0) }) {
            return date
        }
        return nil
    }

    /// Reads `YYYY-MM-DDTHH:MM:SS[.digits](Z|±HH:MM|±HHMM)` byte by byte.
    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        var atEnd: Bool { position == bytes.count }

        mutating func number(_ count: Int) -> Int64? {
            guard position + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[position..<(position + count)] {
                guard byte &- UInt8(ascii: "0") < 10 else { return nil }
                value = value * 10 + Int64(byte &- UInt8(ascii: "0"))
            }
            position += count
            return value
        }

        mutating func expect(_ first: UInt8, or second: UInt8 = 0, or third: UInt8 = 0) -> Bool {
            guard position < bytes.count else { return false }
            let byte = bytes[position]
            guard byte == first || (second != 0 && byte == second) || (third != 0 && byte == third) else { return false }
            position += 1
            return true
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS[.digits](Z|±HH:MM|±HHMM)`, checked field by field.
    private static func parseDateTime(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var cursor = Cursor(bytes: bytes)
        guard let year = cursor.number(4), cursor.expect(UInt8(ascii: "-")), let month = cursor.number(2),
              cursor.expect(UInt8(ascii: "-")), let day = cursor.number(2),
              cursor.expect(UInt8(ascii: "T"), or: UInt8(ascii: "t"), or: UInt8(ascii: " ")),
              let hour = cursor.number(2), cursor.expect(UInt8(ascii: ":")), let minute = cursor.number(2),
              cursor.expect(UInt8(ascii: ":")), let second = cursor.number(2),
              (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 61 else { return nil }
        var fraction: Range<Int> = 0..<0
        if cursor.expect(UInt8(ascii: ".")) {
            let start = cursor.position
            while !cursor.atEnd, bytes[cursor.position] &- UInt8(ascii: "0") < 10 { cursor.position += 1 }
            guard cursor.position > start else { return nil }
            fraction = start..<cursor.position
        }
        var offset: Int64 = 0
        if !cursor.expect(UInt8(ascii: "Z"), or: UInt8(ascii: "z")) {
            guard !cursor.atEnd else { return nil }
            let sign: Int64 = bytes[cursor.position] == UInt8(ascii: "-") ? -1 : 1
            guard cursor.expect(UInt8(ascii: "+"), or: UInt8(ascii: "-")), let hours = cursor.number(2) else { return nil }
            _ = cursor.expect(UInt8(ascii: ":"))
            guard let minutes = cursor.number(2), hours < 24, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard cursor.atEnd else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        let whole = days * 86_400 + hour * 3600 + minute * 60 + second - offset - unixOffset
        // Trailing zeros say nothing.
        while let last = fraction.last, bytes[last] == UInt8(ascii: "0") { fraction = fraction.lowerBound..<last }
        if fraction.isEmpty { return Date(timeIntervalSinceReferenceDate: Double(whole)) }
        return seconds(whole: whole, fraction: UnsafeBufferPointer(rebasing: bytes[fraction])).map {
            Date(timeIntervalSinceReferenceDate: $0)
        }
    }

    /// Days in `month` of `year` (proleptic Gregorian).
    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `whole + 0.fraction` rounded once, exactly as `Double("whole.fraction")`
    /// rounds it. When the digits make an integer below 2^53 and there are
    /// at most 22 of them, that integer and the power of ten are both exact
    /// `Double`s, and IEEE division rounds their quotient correctly (the
    /// fast path of Clinger's algorithm); otherwise the digits go to
    /// `Double(_:)` as text. A negative `whole` is `-(|whole| - 1).(1 - 0.fraction)`.
    private static func seconds(whole: Int64, fraction digits: UnsafeBufferPointer<UInt8>) -> Double? {
        let negative = whole < 0
        let integerPart = negative ? -whole - 1 : whole
        var fraction = Array(digits)
        if negative { fraction = complement(fraction) }
        var scaled: Int64? = integerPart
        for digit in fraction {
            guard let current = scaled else { break }
            let (times10, overflow) = current.multipliedReportingOverflow(by: 10)
            let (next, carry) = times10.addingReportingOverflow(Int64(digit &- UInt8(ascii: "0")))
            scaled = overflow || carry ? nil : next
        }
        if let scaled, scaled < 1 << 53, fraction.count < powersOfTen.count {
            let value = Double(scaled) / powersOfTen[fraction.count]
            return negative ? -value : value
        }
        let text = (negative ? "-" : "") + String(integerPart) + "." + String(decoding: fraction, as: UTF8.self)
        return Double(text)
    }

    /// 10^0 … 10^22, each an exact `Double`.
    private static let powersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }
}

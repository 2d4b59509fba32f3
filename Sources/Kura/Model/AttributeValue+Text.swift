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
/// since 2001: the whole seconds through Foundation's ISO 8601 style, the
/// fraction as the exact decimal digits of the shortest text of the
/// `Double`, added back with decimal (not binary) arithmetic when read.
enum ExactDate {
    /// The years ISO 8601 text is written for; other dates are written as seconds.
    private static let writtenRange: ClosedRange<Double> = -63_113_904_000 ... 252_423_993_599  // 0001-01-01 … 9999-12-31

    static func text(_ date: Date) -> String {
        let seconds = date.timeIntervalSinceReferenceDate
        guard writtenRange.contains(seconds), var exact = Decimal(string: seconds.description) else {
            return seconds.isNaN ? "nan" : seconds.description
        }
        var whole = Decimal()
        NSDecimalRound(&whole, &exact, 0, .down)
        let fraction = exact - whole
        let base = Date(timeIntervalSinceReferenceDate: NSDecimalNumber(decimal: whole).doubleValue).formatted(.iso8601)
        guard fraction != 0, base.hasSuffix("Z") else { return base }
        let digits = fraction.description.drop { $0 != "." }  // ".123456"
        return base.dropLast() + digits + "Z"
    }

    /// ISO 8601 with a time zone and any number of fractional digits, a
    /// calendar date alone (midnight UTC), or seconds since 2001.
    static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed) { return Date(timeIntervalSinceReferenceDate: seconds) }
        // Split off ".digits" after the seconds: Foundation reads at most milliseconds.
        var wholeText = trimmed
        var fraction: Decimal = 0
        if let dot = trimmed.firstIndex(of: "."), let timeMark = trimmed.firstIndex(of: "T"), dot > timeMark {
            let digits = trimmed[trimmed.index(after: dot)...].prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let value = Decimal(string: "0." + digits) else { return nil }
            fraction = value
            wholeText = String(trimmed[..<dot]) + trimmed[digits.endIndex...]
        }
        let wholeDate: Date
        if let date = try? Date(wholeText, strategy: .iso8601) {
            wholeDate = date
        } else if wholeText.count == 10, fraction == 0,
                  let date = try? Date(wholeText, strategy: Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day()) {
            wholeDate = date
        } else {
            return nil
        }
        guard fraction != 0 else { return wholeDate }
        let total = Decimal(Int64(wholeDate.timeIntervalSinceReferenceDate.rounded())) + fraction
        return Double(total.description).map { Date(timeIntervalSinceReferenceDate: $0) }
    }
}

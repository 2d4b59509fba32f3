import Foundation

/// Dates written as text in predicates: `CAST("2026-11-23T08:30:00Z", "NSDate")`.
enum DateLiteral {
    /// `text` as a date: ISO 8601 with a time zone (`Z` or `±hh:mm`), with
    /// or without fractional seconds, or a calendar date alone
    /// (`2026-11-23`, midnight UTC); `nil` for anything else.
    static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let date = try? Date(trimmed, strategy: .iso8601) { return date }
        if let date = try? Date(trimmed, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        let dateOnly = Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).year().month().day()
        if trimmed.count == 10, let date = try? Date(trimmed, strategy: dateOnly) { return date }
        return nil
    }
}

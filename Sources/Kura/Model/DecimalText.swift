import Foundation

/// Decimals as the store writes them: their `description`, which is "NaN"
/// for not-a-number. Foundation's `Decimal(string:)` doesn't read "NaN"
/// back, so reading goes through here.
enum DecimalText {
    static func parse(_ text: String) -> Decimal? {
        text == "NaN" ? Decimal.nan : Decimal(string: text)
    }
}

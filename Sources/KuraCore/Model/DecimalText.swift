import Foundation

/// Decimals as the store writes them: their `description`, which is "NaN"
/// for not-a-number. Foundation's `Decimal(string:)` doesn't read "NaN"
/// back, so reading goes through here.
enum DecimalText {
    static func parse(_ text: String) -> Decimal? {
        text == "NaN" ? Decimal.nan : Decimal(string: text)
    }

    /// `text` as a decimal only if all of it is one (`Decimal(string:)`
    /// reads `1.5abc` as 1.5): digits with an optional sign, point and exponent, or `NaN`.
    static func parseWhole(_ text: String) -> Decimal? {
        var bytes = Substring(text).utf8[...]
        func digits() -> Int {
            let count = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        func skip(_ characters: String) { if let first = bytes.first, characters.utf8.contains(first) { bytes = bytes.dropFirst() } }
        guard text != "NaN" else { return .nan }
        skip("+-")
        var mantissa = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return nil }
        if let first = bytes.first, first == UInt8(ascii: "e") || first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            skip("+-")
            guard digits() > 0 else { return nil }
        }
        return bytes.isEmpty ? Decimal(string: text) : nil
    }
}

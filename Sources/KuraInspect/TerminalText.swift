/// Text made safe to print on a terminal: control characters (C0, DEL and
/// C1, which start escape sequences) are written as visible escapes such as
/// `\x1b`, so a value or a typed line can't move the cursor, change colours
/// or retitle the window.
enum TerminalText {
    /// `text` with every control character but line breaks escaped.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar == "\n" || !isControl(scalar) {
                result.unicodeScalars.append(scalar)
            } else {
                result += escape(scalar)
            }
        }
        return result
    }

    /// How `scalar` is written: `\t`, `\r`, or `\x` and two hex digits.
    static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\t": return "\\t"
        case "\r": return "\\r"
        default:
            let hex = String(scalar.value, radix: 16)
            return scalar.value < 0x100 ? "\\x" + String(repeating: "0", count: 2 - hex.count) + hex : "\\u{\(hex)}"
        }
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The column where character `offset` of `line` lands once escaped.
    static func escapedColumn(of offset: Int, in line: String) -> Int {
        line.prefix(offset).reduce(0) { column, character in
            column + (character.unicodeScalars.contains(where: isControl) ? escaped(String(character)).count : 1)
        }
    }
}

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

extension TerminalText {
    /// The columns `text` takes on a terminal: two for wide characters (CJK,
    /// most emoji), none for combining marks and other zero-width scalars.
    static func columns(of text: String) -> Int {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        return text.reduce(0) { $0 + columns(of: $1) }
    }

    static func columns(of character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if first.properties.generalCategory == .nonspacingMark || first.properties.generalCategory == .enclosingMark
            || first.properties.generalCategory == .format || first.value == 0x200B {
            return 0
        }
        if first.properties.isEmojiPresentation || character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        return isWide(first) ? 2 : 1
    }

    /// East Asian Wide and Fullwidth ranges (Unicode's EastAsianWidth.txt, the blocks that matter).
    static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
             0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
             0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF,
             0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `text` cut to at most `width` columns, ending with "…" when cut.
    static func cut(_ text: String, toColumns width: Int) -> String {
        guard columns(of: text) > width else { return text }
        guard width > 0 else { return "" }
        var result = ""
        var used = 0
        for character in text {
            let size = columns(of: character)
            if used + size > width - 1 { break }
            result.append(character)
            used += size
        }
        while result.last == " " { result.removeLast() }
        return result + "…"
    }

    /// `text` padded with spaces to `width` columns, on the right or the left.
    static func padded(_ text: String, toColumns width: Int, left: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - columns(of: text)))
        return left ? padding + text : text + padding
    }
}

/// Prints rows as aligned columns that fit the terminal:
///
/// ```
/// objectID       title                    sortOrder
/// -------------  -----------------------  ---------
/// kura://News/1  Kura ships                       3
/// kura://News/2  A title long enough to…        nil
/// ```
///
/// When the columns are wider than ``width``, the widest are shortened
/// first (each to no less than ``minimumColumnWidth``), and every value
/// cut is marked with "…"; columns that still don't fit are left out,
/// from the last, and counted in ``Table/hiddenColumns``. Columns given as
/// `whole` (the object ID, which `show` needs as it is) are never cut nor
/// left out: the others give way first. Widths are counted in terminal columns (a CJK
/// character takes two). Line breaks and tabs in values are shown as
/// spaces, other control characters as escapes (`\x1b`); numbers are
/// right-aligned.
struct TableFormatter {
    /// The columns to fit in; `nil` for no limit (output to a pipe or file).
    var width: Int?
    var showsHeaders = true
    static let minimumColumnWidth = 10
    static let gap = 2

    /// A formatted table.
    struct Table {
        var text: String
        /// True when values were shortened.
        var isCut: Bool
        /// How many columns, at the end, were left out to fit.
        var hiddenColumns: Int
    }

    func format(headers: [String], rows: [[String]], rightAligned: Set<Int> = [], whole: Set<Int> = []) -> Table {
        var cleaned = rows.map { $0.map(Self.oneLine) }
        var widths = showsHeaders ? headers.map(TerminalText.columns(of:)) : Array(repeating: 0, count: headers.count)
        for row in cleaned {
            for (column, value) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], TerminalText.columns(of: value))
            }
        }
        var headers = headers
        var hidden = 0
        if let width {
            // Leave out columns from the end while even their minimum widths don't fit.
            func minimum(_ count: Int) -> Int {
                widths.prefix(count).enumerated().reduce(0) { $0 + (whole.contains($1.offset) ? $1.element : min($1.element, Self.minimumColumnWidth)) }
                    + Self.gap * max(0, count - 1)
            }
            var kept = widths.count
            while kept > 1 && !whole.contains(kept - 1) && minimum(kept) > width { kept -= 1 }
            hidden = widths.count - kept
            if hidden > 0 {
                widths.removeLast(hidden)
                headers.removeLast(hidden)
                cleaned = cleaned.map { Array($0.prefix(kept)) }
            }
        }
        let natural = widths
        if let width {
            // The whole columns keep their widths; the others share what is left.
            let wholeWidth = widths.indices.filter(whole.contains).reduce(0) { $0 + widths[$1] }
            let others = widths.indices.filter { !whole.contains($0) }
            let fitted = Self.fit(others.map { widths[$0] }, into: width - wholeWidth - Self.gap * max(0, widths.count - 1))
            for (column, fittedWidth) in zip(others, fitted) { widths[column] = fittedWidth }
        }
        let isCut = widths != natural
        func line(_ cells: [String]) -> String {
            var text = ""
            for (column, cell) in cells.enumerated() where column < widths.count {
                let shown = TerminalText.cut(cell, toColumns: widths[column])
                let isLast = column == cells.count - 1
                if column > 0 { text += String(repeating: " ", count: Self.gap) }
                if rightAligned.contains(column) {
                    text += TerminalText.padded(shown, toColumns: widths[column], left: true)
                } else {
                    text += isLast ? shown : TerminalText.padded(shown, toColumns: widths[column])
                }
            }
            return text
        }
        var lines: [String] = []
        if showsHeaders {
            lines = [line(headers), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
        }
        lines += cleaned.map(line)
        return Table(text: lines.joined(separator: "\n"), isCut: isCut, hiddenColumns: hidden)
    }

    /// Column widths summing to at most `available`: the widest are brought
    /// down to a common level, and what is left over goes back to them one
    /// column at a time. Never below ``minimumColumnWidth`` (or a column's
    /// own width, if smaller), so a table of many columns may still overflow.
    static func fit(_ widths: [Int], into available: Int) -> [Int] {
        guard widths.reduce(0, +) > available else { return widths }
        func total(at level: Int) -> Int { widths.reduce(0) { $0 + min($1, max(level, minimumColumnWidth)) } }
        var low = 0
        var high = widths.max() ?? 0
        while low < high {  // the highest level that fits
            let middle = (low + high + 1) / 2
            if total(at: middle) <= available { low = middle } else { high = middle - 1 }
        }
        let level = max(low, minimumColumnWidth)
        var fitted = widths.map { min($0, level) }
        var spare = available - fitted.reduce(0, +)
        for column in fitted.indices where spare > 0 && widths[column] > fitted[column] {
            fitted[column] += 1
            spare -= 1
        }
        return fitted
    }

    /// A value on one line: line breaks and tabs as spaces, control characters escaped.
    static func oneLine(_ value: String) -> String {
        TerminalText.escaped(String(value.map { $0.isNewline || $0 == "\t" ? " " : $0 }))
    }
}

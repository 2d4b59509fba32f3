/// Prints rows as aligned columns, the way `kura` shows results:
///
/// ```
/// objectID        title                    sortOrder
/// --------------  -----------------------  ---------
/// kura://News/1   Kura ships               3
/// kura://News/2   A title long enough to…  nil
/// ```
///
/// Values longer than ``maximumWidth`` characters are cut with "…"; line
/// breaks and tabs in values are shown as spaces, other control characters
/// as escapes (`\x1b`); numbers are right-aligned.
struct TableFormatter {
    var maximumWidth = 40

    func format(headers: [String], rows: [[String]], rightAligned: Set<Int> = []) -> String {
        let cleaned = rows.map { $0.map(cut) }
        var widths = headers.map(\.count)
        for row in cleaned {
            for (column, value) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], value.count)
            }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: max(0, widths[column] - cell.count))
                if column == cells.count - 1 && !rightAligned.contains(column) { return cell }
                return rightAligned.contains(column) ? padding + cell : cell + padding
            }.joined(separator: "  ")
        }
        var lines = [line(headers), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
        lines += cleaned.map(line)
        return lines.joined(separator: "\n")
    }

    /// A value on one line, at most `maximumWidth` characters.
    func cut(_ value: String) -> String {
        var text = TerminalText.escaped(String(value.map { $0.isNewline || $0 == "\t" ? " " : $0 }))
        if text.count > maximumWidth {
            text = String(text.prefix(maximumWidth - 1)) + "…"
        }
        return text
    }
}

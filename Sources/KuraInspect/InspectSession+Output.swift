import Foundation
import Kura

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How results are printed (`mode`, `.mode`, `--mode`).
public enum OutputMode: String, Sendable, Equatable, CaseIterable {
    /// Aligned columns fitted to the terminal's width, cut values marked "…".
    case table
    /// One `name = value` per line, whole values, a blank line between objects (sqlite3's `.mode line`).
    case line
    /// RFC 4180 CSV, lossless: no value is an empty unquoted field, the empty string `""`.
    case csv
    /// Results as one JSON array, an object per line inside it.
    case json
    /// One JSON object per line (JSON Lines).
    case jsonl

    /// True for the JSON modes, where reports are JSON objects too.
    var isJSON: Bool { self == .json || self == .jsonl }
}

/// How wide tables may be.
public enum OutputWidth: Sendable, Equatable {
    /// The terminal's width, measured before each command; unlimited when
    /// the output isn't a terminal.
    case terminal
    /// A fixed number of columns.
    case columns(Int)
    /// No limit: nothing is cut.
    case unlimited
}

extension InspectSession {
    /// Prints one line (or several joined by line breaks) where output
    /// goes now: the `.once` file, the `.output` file, or the session's output.
    func print(_ text: String) {
        (onceFile ?? outputFile ?? output).write(text)
    }

    /// Writes what is buffered where output goes now (a prompt is about to show).
    func flushOutput() throws(InspectError) {
        try (onceFile ?? outputFile ?? output).flush()
    }

    /// Throws when output already failed to be written: long commands
    /// (exports, dumps) ask between batches, and stop.
    func checkOutput() throws(InspectError) {
        if let failure = (onceFile ?? outputFile ?? output).failure { throw failure }
    }

    /// The columns tables fit in now; `nil` for no limit.
    var tableWidth: Int? {
        if onceFile != nil || outputFile != nil { return nil }
        switch width {
        case .unlimited: return nil
        case .columns(let columns): return max(columns, 20)
        case .terminal: return Self.terminalColumns()
        }
    }

    /// The width of the terminal standard output is, or `nil` when it isn't one.
    static func terminalColumns() -> Int? {
        var size = winsize()
        guard isatty(1) != 0, ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    var table: TableFormatter {
        TableFormatter(width: tableWidth, showsHeaders: showsHeaders)
    }

    /// Prints a result in the session's mode. Tables right-align the
    /// columns in `rightAligned`, or, by default, those holding numbers.
    func emit(headers: [String], rows: [[Cell]], rightAligned: Set<Int>? = nil) {
        switch mode {
        case .table:
            let aligned = rightAligned ?? Set(headers.indices.filter { column in
                var sawNumber = false
                for row in rows where column < row.count && row[column] != .null {
                    guard row[column].isNumeric else { return false }
                    sawNumber = true
                }
                return sawNumber
            })
            let formatted = table.format(headers: headers, rows: rows.map { $0.map { $0.display(null: nullDisplay) } }, rightAligned: aligned,
                                         whole: Set(headers.indices.filter { headers[$0] == "objectID" }))
            print(formatted.text)
            if formatted.hiddenColumns > 0 {
                let names = headers.suffix(formatted.hiddenColumns).joined(separator: ", ")
                let note = "(left out to fit: \(names); choose columns, or mode line)"
                print(tableWidth.map { TerminalText.cut(note, toColumns: $0) } ?? note)
            }
        case .line:
            let nameWidth = headers.map(TerminalText.columns(of:)).max() ?? 0
            for (position, row) in rows.enumerated() {
                if position > 0 { print("") }
                for (column, cell) in row.enumerated() where column < headers.count {
                    let value = TerminalText.escaped(cell.display(null: nullDisplay))
                        .replacingOccurrences(of: "\n", with: "\n" + String(repeating: " ", count: nameWidth + 3))
                    print(TerminalText.padded(headers[column], toColumns: nameWidth, left: true) + " = " + value)
                }
            }
        case .csv:
            if showsHeaders { print(CSVText.record(headers)) }
            for row in rows { print(CSVText.record(row.map(\.field))) }
        case .json, .jsonl:
            let keys = ObjectExport.jsonKeys(headers)
            let objects = rows.map { row in
                var bytes: [UInt8] = []
                ObjectExport.writeJSON(keys: keys, row: row, to: &bytes)
                return String(decoding: bytes, as: UTF8.self)
            }
            if mode == .jsonl {
                for object in objects { print(object) }
            } else {
                print("[" + objects.joined(separator: ",\n") + "]")
            }
        }
    }

    /// Prints a report of plain text columns (schemas, statistics) in a
    /// text mode; the JSON modes print their own objects.
    func emit(headers: [String], text rows: [[String]], rightAligned: Set<Int> = []) {
        emit(headers: headers, rows: rows.map { $0.map(Cell.text) }, rightAligned: rightAligned)
    }

    /// Prints one JSON object (reports in the JSON modes).
    func emitJSON(_ object: Any) {
        print(JSONValue(object).text)
    }

    /// Starts sending output to `path` (or back to the session's output
    /// for `nil`). The file is written under a temporary name and takes
    /// its name when output goes elsewhere (or the session ends).
    func redirectOutput(to path: String?) throws {
        let previous = outputFile
        outputFile = nil
        try previous?.close()
        if let path, path != "stdout" { outputFile = try OutputSink.file(at: path) }
    }

    /// Sends the next command's output to `path`.
    func redirectNextCommand(to path: String) throws {
        onceFile?.discard()
        onceFile = try OutputSink.file(at: path)
    }

    /// After each command: the `.once` file is complete (or, when the
    /// command failed, removed); the rest is flushed.
    /// - Throws: ``InspectError`` when output couldn't be written.
    func finishCommandOutput(command: SessionCommand, succeeded: Bool) throws(InspectError) {
        if command.redirectsNextCommand { return }
        let once = onceFile
        onceFile = nil
        if succeeded {
            try once?.close()
        } else {
            once?.discard()
        }
        try outputFile?.flush()
        try output.flush()
    }

    /// Ends the session's output: the `.output` file takes its name,
    /// and what is buffered is written.
    /// - Throws: ``InspectError`` when output couldn't be written.
    public func finishOutput() throws(InspectError) {
        let file = outputFile
        outputFile = nil
        onceFile?.discard()
        onceFile = nil
        try file?.close()
        try output.flush()
    }
}

import Foundation
import Kura

#if canImport(Glibc)
import Glibc
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

/// A file that output goes to (`.output FILE`, `.once FILE`), written in
/// large pieces rather than a system call per line.
final class OutputFile {
    let path: String
    private let handle: FileHandle
    private var buffer: [UInt8] = []

    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw InspectError("can't write \(path): \(String(cString: strerror(errno)))")
        }
        self.path = path
        self.handle = handle
        buffer.reserveCapacity(1 << 16)
    }

    func write(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        handle.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    func close() {
        flush()
        try? handle.close()
    }

    deinit { flush() }
}

extension InspectSession {
    /// Prints one line (or several joined by line breaks) where output
    /// goes now: the `.once` file, the `.output` file, or the session's output.
    func print(_ text: String) {
        if let file = onceFile ?? outputFile {
            file.write(text)
        } else {
            standardOutput(text)
        }
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
            let formatted = table.format(headers: headers, rows: rows.map { $0.map(\.display) }, rightAligned: aligned)
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
                    let value = TerminalText.escaped(cell.display)
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

    /// Starts sending output to `path` (or back to the session's output for `nil`).
    func redirectOutput(to path: String?) throws {
        outputFile?.close()
        outputFile = nil
        if let path, path != "stdout" { outputFile = try OutputFile(path: path) }
    }

    /// Sends the next command's output to `path`.
    func redirectNextCommand(to path: String) throws {
        onceFile?.close()
        onceFile = try OutputFile(path: path)
    }

    /// After each command: the `.once` file is done; the `.output` file is flushed.
    func finishCommandOutput(command: InspectCommand) {
        if case .once = command { return }
        onceFile?.close()
        onceFile = nil
        outputFile?.flush()
    }
}

/// CSV as RFC 4180 writes it, with PostgreSQL's `COPY … CSV` rule for
/// missing values: an empty *unquoted* field is no value (`nil`), a quoted
/// empty field (`""`) is the empty string. So a CSV export reads back exactly.
enum CSVText {
    /// One record: fields separated by commas, quoted when they hold a
    /// comma, a quote, a line break or surrounding spaces, or are empty.
    static func record(_ fields: [String?]) -> String {
        var bytes: [UInt8] = []
        for (position, field) in fields.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            append(field, to: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends one field, quoted as ``record(_:)`` quotes it (nothing for `nil`).
    static func append(_ field: String?, to bytes: inout [UInt8]) {
        guard var field else { return }
        field.withUTF8 { utf8 in
            let needsQuotes = utf8.isEmpty || utf8.first == UInt8(ascii: " ") || utf8.last == UInt8(ascii: " ")
                || ByteScan.contains(utf8, below: 0, or: (UInt8(ascii: ","), UInt8(ascii: "\""), 0x0A, 0x0D))
            guard needsQuotes else {
                bytes.append(contentsOf: utf8)
                return
            }
            bytes.append(UInt8(ascii: "\""))
            for byte in utf8 {
                if byte == UInt8(ascii: "\"") { bytes.append(byte) }
                bytes.append(byte)
            }
            bytes.append(UInt8(ascii: "\""))
        }
    }

    /// A record that isn't valid CSV, and on which line it starts.
    struct SyntaxError: Error, Equatable {
        let message: String
        let line: Int
    }

    /// Reads records one at a time from text that may hold line breaks
    /// inside quoted fields; each record comes with the line it starts on.
    struct Reader {
        private let bytes: [UInt8]
        private var position = 0
        private var line = 1

        init(_ text: String) {
            bytes = Array(text.utf8)
        }

        /// The next record and its first line; `nil` at the end. Blank lines are skipped.
        mutating func next() throws(SyntaxError) -> (fields: [String?], line: Int)? {
            while position < bytes.count, bytes[position] == 0x0A || bytes[position] == 0x0D {
                if bytes[position] == 0x0A { line += 1 }
                position += 1
            }
            guard position < bytes.count else { return nil }
            let start = line
            var fields: [String?] = []
            while true {
                fields.append(try field(recordLine: start))
                guard position < bytes.count else { return (fields, start) }
                switch bytes[position] {
                case UInt8(ascii: ","):
                    position += 1
                    if position == bytes.count || bytes[position] == 0x0A || bytes[position] == 0x0D {
                        fields.append(nil)  // a trailing empty field
                        return (fields, start)
                    }
                case 0x0D, 0x0A:
                    if bytes[position] == 0x0D, position + 1 < bytes.count, bytes[position + 1] == 0x0A { position += 1 }
                    position += 1
                    line += 1
                    return (fields, start)
                default:
                    throw SyntaxError(message: "expected a comma or the end of the line after a quoted field", line: line)
                }
            }
        }

        private mutating func field(recordLine: Int) throws(SyntaxError) -> String? {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                let start = position
                while position < bytes.count, ![UInt8(ascii: ","), 0x0A, 0x0D].contains(bytes[position]) {
                    if bytes[position] == UInt8(ascii: "\"") {
                        throw SyntaxError(message: "a quote inside an unquoted field (quote the field and double the quote)", line: line)
                    }
                    position += 1
                }
                return start == position ? nil : String(decoding: bytes[start..<position], as: UTF8.self)
            }
            position += 1
            var value: [UInt8] = []
            while true {
                guard position < bytes.count else {
                    throw SyntaxError(message: "a quoted field that starts on line \(recordLine) is not closed", line: recordLine)
                }
                let byte = bytes[position]
                position += 1
                if byte == UInt8(ascii: "\"") {
                    if position < bytes.count, bytes[position] == UInt8(ascii: "\"") {
                        value.append(byte)
                        position += 1
                    } else {
                        return String(decoding: value, as: UTF8.self)
                    }
                } else {
                    if byte == 0x0A { line += 1 }
                    value.append(byte)
                }
            }
        }
    }
}

/// Splits a command line into words, keeping quoted text and bracketed
/// lists whole, and remembering where each word starts, so a predicate can be
/// cut out of the line as it was typed.
struct CommandTokenizer {
    struct Word: Equatable {
        /// The word as typed (quotes included).
        let text: String
        /// Offset of its first character in the line, in characters.
        let start: Int
        /// Offset just past its last character.
        let end: Int
        /// True when the word is outside any parentheses, braces or quotes,
        /// so it can be a clause keyword (`where`, `sort`, `limit`, `offset`).
        let isTopLevel: Bool

        /// The word without surrounding quotes. Inside them a backslash
        /// escapes only the quote and itself (`\'`, `\"`, `\\`); before
        /// anything else it is kept, so `'C:\data\n.kura'` and `'a\b.kura'`
        /// name the files they spell.
        var unquoted: String {
            guard let first = text.first, first == "\"" || first == "'", text.count >= 2, text.last == first else {
                return text
            }
            let inner = Array(text.dropFirst().dropLast())
            var result = ""
            var index = 0
            while index < inner.count {
                if inner[index] == "\\", index + 1 < inner.count, inner[index + 1] == first || inner[index + 1] == "\\" {
                    result.append(inner[index + 1])
                    index += 2
                } else {
                    result.append(inner[index])
                    index += 1
                }
            }
            return result
        }
    }

    struct UnclosedQuote: Error {
        let position: Int
    }

    /// The words of `line`. Spaces separate words except inside quotes;
    /// `,` inside parentheses and braces belongs to the word.
    static func words(of line: String) throws(UnclosedQuote) -> [Word] {
        let characters = Array(line)
        var words: [Word] = []
        var index = 0
        var depth = 0
        while index < characters.count {
            if characters[index].isWhitespace {
                index += 1
                continue
            }
            let start = index
            let startDepth = depth
            var quote: Character?
            while index < characters.count {
                let character = characters[index]
                if let open = quote {
                    if character == "\\" {
                        index += 2
                        continue
                    }
                    if character == open { quote = nil }
                    index += 1
                    continue
                }
                if character == "\"" || character == "'" {
                    quote = character
                } else if character == "(" || character == "{" {
                    depth += 1
                } else if character == ")" || character == "}" {
                    depth = max(0, depth - 1)
                } else if character.isWhitespace && depth == 0 {
                    break
                }
                index += 1
            }
            if quote != nil { throw UnclosedQuote(position: start) }
            index = min(index, characters.count)
            words.append(Word(text: String(characters[start..<index]), start: start, end: index, isTopLevel: startDepth == 0))
        }
        return words
    }
}

// The predicate parser's tokens: reading the text into words, strings,
// numbers, variables, arguments and symbols, and looking at them.

extension PredicateParser {
    var peek: Located { tokens[current] }

    mutating func advance() -> Located {
        let token = tokens[current]
        if current < tokens.count - 1 { current += 1 }
        return token
    }

    func isKeyword(_ token: Token, _ keyword: String) -> Bool {
        if case .word(let word) = token { return word.uppercased() == keyword }
        return false
    }

    func isSymbol(_ token: Token, _ symbols: String...) -> Bool {
        if case .symbol(let symbol) = token { return symbols.contains(symbol) }
        return false
    }

    mutating func tokenize() throws(PredicateSyntaxError) {
        var index = 0
        func character(_ offset: Int) -> Unicode.Scalar? {
            index + offset < characters.count ? characters[index + offset] : nil
        }
        while index < characters.count {
            let start = index
            let char = characters[index]
            if char.properties.isWhitespace {
                index += 1
            } else if char == "\"" || char == "'" {
                index += 1
                var text = String.UnicodeScalarView()
                var closed = false
                while index < characters.count {
                    let next = characters[index]
                    if next == char {
                        closed = true
                        index += 1
                        break
                    }
                    if next == "\\" {
                        guard index + 1 < characters.count else { break }
                        let escaped = characters[index + 1]
                        index += 2
                        switch escaped {
                        case "n": text.append("\n")
                        case "t": text.append("\t")
                        case "r": text.append("\r")
                        case "0": text.append("\0")
                        case "u":
                            let hex = String(String.UnicodeScalarView(characters[index..<min(index + 4, characters.count)]))
                            guard hex.count == 4, let scalar = UInt32(hex, radix: 16).flatMap(Unicode.Scalar.init) else {
                                throw error("expected four hexadecimal digits after \\u", at: index)
                            }
                            text.append(scalar)
                            index += 4
                        default: text.append(escaped)
                        }
                        continue
                    }
                    text.append(next)
                    index += 1
                }
                guard closed else { throw error("the string that starts here is not closed", at: start) }
                tokens.append(Located(token: .string(String(text)), position: start))
            } else if Self.isDigit(char) {
                if char == "0", let x = character(1), x == "x" || x == "X" {
                    index += 2
                    while let digit = character(0), Self.isDigit(digit) || ("a"..."f").contains(digit) || ("A"..."F").contains(digit) {
                        index += 1
                    }
                } else {
                    while let digit = character(0), Self.isDigit(digit) { index += 1 }
                    if character(0) == ".", let digit = character(1), Self.isDigit(digit) {
                        index += 1
                        while let digit = character(0), Self.isDigit(digit) { index += 1 }
                    }
                    if let e = character(0), e == "e" || e == "E" {
                        var lookahead = 1
                        if let sign = character(1), sign == "+" || sign == "-" { lookahead = 2 }
                        if let digit = character(lookahead), Self.isDigit(digit) {
                            index += lookahead
                            while let digit = character(0), Self.isDigit(digit) { index += 1 }
                        }
                    }
                }
                tokens.append(Located(token: .number(Self.text(characters[start..<index])), position: start))
            } else if Self.isWordStart(char) || char == "#" || char == "$" {
                index += 1
                while let next = character(0), Self.isWordStart(next) || Self.isDigit(next) { index += 1 }
                let name = Self.text(characters[(start + 1)..<index])
                switch char {
                case "#":
                    guard !name.isEmpty else { throw error("expected a key after '#'", at: start) }
                    tokens.append(Located(token: .escapedKey(name), position: start))
                case "$":
                    guard !name.isEmpty else { throw error("expected a variable name after '$'", at: start) }
                    tokens.append(Located(token: .variable(name), position: start))
                default:
                    // NSPredicate's function `modulus:by:(a, b)`.
                    if Self.text(characters[start..<index]) == "modulus",
                       index + 4 <= characters.count, Self.text(characters[index..<(index + 4)]) == ":by:" {
                        index += 4
                        tokens.append(Located(token: .word("modulus:by:"), position: start))
                    } else {
                        tokens.append(Located(token: .word(Self.text(characters[start..<index])), position: start))
                    }
                }
            } else if char == "%" {
                let specifiers = ["@", "K", "d", "i", "ld", "lld", "f", "lf", "u", "lu"]
                guard let specifier = specifiers.sorted(by: { $0.count > $1.count }).first(where: { spec in
                    spec.unicodeScalars.enumerated().allSatisfy { character($0.offset + 1) == $0.element }
                }) else {
                    throw error("expected %@ or %K after '%'", at: start)
                }
                index += 1 + specifier.count
                tokens.append(Located(token: .argument("%" + specifier), position: start))
            } else {
                let two = character(1).map { Self.text([char, $0]) } ?? ""
                if ["==", "!=", "<>", "<=", ">=", "=<", "=>", "&&", "||"].contains(two) {
                    index += 2
                    tokens.append(Located(token: .symbol(two), position: start))
                } else if "=<>!(){},[]-.@+*/".unicodeScalars.contains(char) {
                    index += 1
                    tokens.append(Located(token: .symbol(Self.text([char])), position: start))
                } else {
                    throw error("unexpected character '\(char)'", at: start)
                }
            }
        }
        tokens.append(Located(token: .end, position: characters.count))
    }

    static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    /// The rule for a word: a letter or `_`, then letters, digits and `_`.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, isWordStart(first) else { return false }
        return name.unicodeScalars.allSatisfy { isWordStart($0) || isDigit($0) }
    }

    static func isWordStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar.properties.isAlphabetic
    }

    static func text<Scalars: Sequence>(_ scalars: Scalars) -> String where Scalars.Element == Unicode.Scalar {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }
}

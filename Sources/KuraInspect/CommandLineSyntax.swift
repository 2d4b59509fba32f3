/// What one command of a command-line tool takes (`kura fetch`, `kura-fuzz`),
/// its help text, and the parsing of its arguments: options `--name VALUE`
/// (or `--name=VALUE`) and flags `--name` anywhere before the command's
/// free words begin, then its positional arguments in order, then (for the
/// commands that take them) every remaining word as it is, options
/// included: `kura fetch news.kura News where 'views > 3'`.
///
/// Written here rather than taken from swift-argument-parser so that a
/// package depending on Kura resolves no other package.
public struct CommandSyntax: Sendable {
    /// An option (with a value) or a flag (without).
    public struct Option: Sendable {
        public var name: String
        /// What the value is called in help (`N`, `FORMAT`); `nil` for a flag.
        public var valueName: String?
        public var help: String

        public init(_ name: String, value valueName: String? = nil, help: String) {
            self.name = name
            self.valueName = valueName
            self.help = help
        }
    }

    /// A positional argument; optional when it has a default.
    public struct Positional: Sendable {
        public var name: String
        public var help: String
        public var defaultValue: String?

        public init(_ name: String, default defaultValue: String? = nil, help: String) {
            self.name = name
            self.defaultValue = defaultValue
            self.help = help
        }
    }

    public var name: String
    public var abstract: String
    public var discussion: String
    public var positionals: [Positional]
    public var options: [Option]
    /// The name in help of the free words after the positionals (`WORDS`);
    /// `nil` when the command takes none.
    public var words: String?

    public init(_ name: String, abstract: String, discussion: String = "", positionals: [Positional] = [],
                options: [Option] = [], words: String? = nil) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.positionals = positionals
        self.options = options
        self.words = words
    }

    /// The arguments of one run of the command.
    public struct Arguments: Sendable {
        /// Positional arguments by name (defaults filled in).
        public var positionals: [String: String] = [:]
        /// Option values by name.
        public var values: [String: String] = [:]
        /// The flags given.
        public var flags: Set<String> = []
        /// The free words, in order.
        public var words: [String] = []
        /// True when `--help` or `-h` was given.
        public var wantsHelp = false

        public subscript(positional name: String) -> String { positionals[name] ?? "" }

        /// The value of option `name` as an integer of type `T`, or `nil` when not given.
        public func integer<T: FixedWidthInteger>(_ name: String, as type: T.Type = Int.self) throws(CommandLineError) -> T? {
            guard let text = values[name] else { return nil }
            guard let value = T(text) else { throw CommandLineError("--\(name) takes a whole number, not '\(text)'") }
            return value
        }

        /// The value of option `name` as a `Double`, or `nil` when not given.
        public func number(_ name: String) throws(CommandLineError) -> Double? {
            guard let text = values[name] else { return nil }
            guard let value = Double(text) else { throw CommandLineError("--\(name) takes a number, not '\(text)'") }
            return value
        }
    }

    /// Parses `arguments` (those after the command's name).
    public func parse(_ arguments: [String]) throws(CommandLineError) -> Arguments {
        var parsed = Arguments()
        var positional = 0
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            let inWords = words != nil && positional >= positionals.count && !parsed.words.isEmpty
            if inWords {
                parsed.words.append(argument)
                continue
            }
            if argument == "--help" || argument == "-h" {
                parsed.wantsHelp = true
                continue
            }
            if argument.hasPrefix("--"), argument.count > 2 {
                let body = argument.dropFirst(2)
                let name = String(body.prefix { $0 != "=" })
                let inline = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
                guard let option = options.first(where: { $0.name == name }) else {
                    let close = Self.closest(to: name, in: options.map(\.name)).map { " (did you mean '--\($0)'?)" } ?? ""
                    throw CommandLineError("unknown option '--\(name)'" + close)
                }
                if option.valueName == nil {
                    guard inline == nil else { throw CommandLineError("--\(name) takes no value") }
                    parsed.flags.insert(name)
                } else if let inline {
                    parsed.values[name] = inline
                } else {
                    guard index < arguments.endIndex else { throw CommandLineError("--\(name) needs a value (\(option.valueName!))") }
                    parsed.values[name] = arguments[index]
                    index += 1
                }
                continue
            }
            if positional < positionals.count {
                parsed.positionals[positionals[positional].name] = argument
                positional += 1
            } else if words != nil {
                parsed.words.append(argument)
            } else {
                throw CommandLineError("unexpected argument '\(argument)'")
            }
        }
        if parsed.wantsHelp { return parsed }
        for missing in positionals[positional...] {
            guard let defaultValue = missing.defaultValue else { throw CommandLineError("missing \(missing.name)") }
            parsed.positionals[missing.name] = defaultValue
        }
        return parsed
    }

    /// One line: `kura fetch [options] STORE [WORDS…]`.
    public func usage(tool: String) -> String {
        var parts = [tool == name ? tool : "\(tool) \(name)"]
        if !options.isEmpty { parts.append("[options]") }
        parts += positionals.map { $0.defaultValue == nil ? $0.name : "[\($0.name)]" }
        if let words { parts.append("[\(words)…]") }
        return parts.joined(separator: " ")
    }

    /// The command's help: what it does, its usage, its arguments and options.
    public func help(tool: String) -> String {
        var lines = [abstract, "", "usage: " + usage(tool: tool)]
        if !discussion.isEmpty { lines += ["", discussion] }
        let described = positionals.map { ($0.name, $0.help + ($0.defaultValue.map { " (default: \($0))" } ?? "")) }
            + (words.map { [($0, "")] } ?? []).filter { !$0.1.isEmpty }
        if !described.isEmpty {
            lines += ["", "arguments:"] + described.map { "  " + Self.padded($0.0) + $0.1 }
        }
        let all = options + [Option("help", help: "Show this help.")]
        lines += ["", "options:"] + all.map { option in
            "  " + Self.padded("--" + option.name + (option.valueName.map { " " + $0 } ?? "")) + option.help
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The name among `names` closest to a mistyped `word` (case ignored,
    /// within two edits), or `nil` when none is that close.
    public static func closest(to word: String, in names: [String]) -> String? {
        Suggestion.closest(to: word, in: names)
    }

    private static func padded(_ text: String) -> String {
        text.count >= 20 ? text + "  " : text + String(repeating: " ", count: 22 - text.count)
    }
}

/// A command line that doesn't parse: what is wrong, said in one line.
public struct CommandLineError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

import Foundation

/// Writes a predicate tree as NSPredicate format text, in one canonical way:
/// parsing the text gives the same tree back.
///
/// Parentheses appear only where precedence needs them (`NOT (a OR b)`,
/// `a AND (b OR c)`), so the text never nests deeper than any text that
/// parses to the same tree: a predicate within the parser's nesting limit
/// formats to text within it too.
///
/// Values NSPredicate can't write as literals use `CAST`: dates as
/// `CAST(seconds since 2001, "NSDate")` (the seconds quoted when not
/// finite), and `CAST("…", "Type")` for floats, decimals, UUIDs, data
/// (base64), URLs and non-finite doubles.
enum PredicateFormatter {
    static func format(_ node: FetchPredicate.Node) -> String {
        switch node {
        case .constant(let value):
            return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .not(let inner):
            switch inner {
            case .and, .or: return "NOT (\(format(inner)))"
            default: return "NOT \(format(inner))"
            }
        case .and(let nodes):
            return nodes.map { node in
                if case .or = node { return "(\(format(node)))" }
                return format(node)
            }.joined(separator: " AND ")
        case .or(let nodes):
            // AND binds tighter than OR: its terms need no parentheses.
            return nodes.map(format).joined(separator: " OR ")
        case .comparison(let left, let operation, let right, let options, let quantifier):
            var flags = ""
            if options.contains(.caseInsensitive) { flags += "c" }
            if options.contains(.diacriticInsensitive) { flags += "d" }
            if options.contains(.normalized) { flags += "n" }
            let prefix = quantifier == .direct ? "" : quantifier.rawValue + " "
            return "\(prefix)\(format(left)) \(operation.rawValue)\(flags.isEmpty ? "" : "[\(flags)]") \(format(right))"
        }
    }

    static func format(_ expression: FetchPredicate.Expression) -> String {
        switch expression {
        case .key(let name):
            return formatKeyPath(name)
        case .variable(let name):
            return "$\(name)"
        case .variableKeyPath(let name, let path):
            return "$\(name).\(formatKeyPath(path))"
        case .list(let elements):
            return "{" + elements.map(format).joined(separator: ", ") + "}"
        case .value(let value):
            return format(value)
        case .object(let uri):
            return "CAST(\(quoted(uri)), \"ObjectID\")"
        case .evaluatedObject:
            return "SELF"
        case .aggregate(let aggregate, let collection, let path):
            return format(collection) + ".@" + aggregate.rawValue + (path.map { "." + formatKeyPath($0) } ?? "")
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(\(format(collection)), $\(variable), \(format(predicate.root)))"
        case .arithmetic(let operation, let left, let right):
            return formatArithmetic(operation, left, right, format)
        }
    }

    /// `left op right`, its sides in parentheses only where precedence
    /// needs them (`(a + b) * c`, `a - (b - c)`); `modulus:by:(a, b)`.
    static func formatArithmetic<Side>(
        _ operation: FetchPredicate.ArithmeticOperator, _ left: Side, _ right: Side, _ format: (Side) -> String
    ) -> String where Side: ArithmeticSide {
        if operation == .modulus { return "modulus:by:(\(format(left)), \(format(right)))" }
        func side(_ expression: Side, isRight: Bool) -> String {
            guard let inner = expression.arithmeticOperator, inner != .modulus else { return format(expression) }
            let needs = inner.precedence < operation.precedence
                || (isRight && inner.precedence == operation.precedence)
            return needs ? "(\(format(expression)))" : format(expression)
        }
        return "\(side(left, isRight: false)) \(operation.rawValue) \(side(right, isRight: true))"
    }

    /// A key or key path: each component as a word, `#`-escaped where it is
    /// a keyword or not a word (`#` lets a component start with a digit,
    /// `parent.#2nd`, as the parser reads it). Escaping the whole path
    /// instead would read back as an escaped first key, a dot, and a number.
    static func formatKeyPath(_ path: String) -> String {
        path.split(separator: ".", omittingEmptySubsequences: false).map { component in
            let key = String(component)
            return PredicateParser.isIdentifier(key) && !PredicateParser.keywords.contains(key.uppercased()) ? key : "#\(key)"
        }.joined(separator: ".")
    }

    static func format(_ value: AttributeValue?) -> String {
        guard let value else { return "nil" }
        switch value {
        case .bool(let flag): return flag ? "TRUE" : "FALSE"
        case .int(let integer): return String(integer)
        case .double(let number):
            return number.isFinite ? String(number) : "CAST(\(quoted(String(number))), \"Double\")"
        case .float(let number): return "CAST(\(quoted(String(number))), \"Float\")"
        case .decimal(let number): return "CAST(\(quoted(number.description)), \"NSDecimalNumber\")"
        case .string(let text): return quoted(text)
        case .date(let date):
            let seconds = date.timeIntervalSinceReferenceDate
            return "CAST(\(seconds.isFinite ? String(seconds) : quoted(String(seconds))), \"NSDate\")"
        case .uuid(let uuid): return "CAST(\(quoted(uuid.uuidString)), \"UUID\")"
        case .data(let data): return "CAST(\(quoted(data.base64EncodedString())), \"NSData\")"
        case .url(let url): return "CAST(\(quoted(url.absoluteString)), \"NSURL\")"
        }
    }

    /// A double-quoted string literal with `"`, `\` and control characters escaped.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += String(format: "\\u%04X", scalar.value)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

/// A side of an arithmetic expression, source or compiled: whether it is
/// arithmetic itself, for parentheses.
protocol ArithmeticSide {
    var arithmeticOperator: FetchPredicate.ArithmeticOperator? { get }
}

extension FetchPredicate.Expression: ArithmeticSide {
    var arithmeticOperator: FetchPredicate.ArithmeticOperator? {
        if case .arithmetic(let operation, _, _) = self { return operation }
        return nil
    }
}

extension Operand: ArithmeticSide {
    var arithmeticOperator: FetchPredicate.ArithmeticOperator? {
        if case .arithmetic(let operation, _, _) = self { return operation }
        return nil
    }
}

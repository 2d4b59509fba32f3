import Foundation

// Arithmetic in a converted predicate: computed by the store as Swift
// computes it (integers as integers, `Double`s as `Double`s), and, where
// it is exact, solved for the property so an index can answer
// (`rating + 1 > 5` is `rating > 4`).
extension FoundationPredicateConversion {
    /// `left op right`, in each branch of a `?:` or `??` on either side;
    /// two values known now are computed now.
    func arithmetic(_ operation: FetchPredicate.ArithmeticOperator, _ left: Term, _ right: Term,
                    describing expression: any PredicateExpression) throws -> Term {
        try lifted(left) { left in
            try lifted(right) { right in
                if case .constant(let a) = left, case .constant(let b) = right,
                   case .value(let x) = try Self.constant(a), case .value(let y) = try Self.constant(b) {
                    return .constant(Self.swiftValue(operation.apply(x, y)))
                }
                try requireNumber(left, describing: expression)
                try requireNumber(right, describing: expression)
                return .arithmetic(operation, left, right)
            }
        }
    }

    private func requireNumber(_ term: Term, describing expression: any PredicateExpression) throws {
        switch term {
        case .constant(let value) where value == nil || Self.number(value) != nil: return
        case .path(_, _, .integer), .path(_, _, .floating), .aggregate, .arithmetic, .variable: return
        case .path(_, _, .inexact), .path(_, _, .float):
            throw Unsupported(reason: "\(Self.describe(expression)): the store computes with Float and Decimal properties as Double, "
                + "which can round otherwise than Swift; compare the property itself")
        case .length:
            throw Unsupported(reason: "\(Self.describe(expression)): a string's count is only compared with a number")
        default:
            throw Unsupported(reason: "\(Self.describe(expression)): arithmetic on what isn't a number property")
        }
    }

    /// `a op b ⋈ value` as `x ⋈' bound`, where `x` is one side of `op`
    /// giving integers and the other is an integer known now: exact, and
    /// what an index on `x` answers. `nil` where that isn't so.
    func solved(_ a: Term, _ arithmetic: FetchPredicate.ArithmeticOperator, _ b: Term,
                _ operation: FetchPredicate.Operator, _ value: Any?,
                describing expression: any PredicateExpression) throws -> FetchPredicate.Node? {
        guard let number = Self.number(value), abs(number) < Self.exactIntegers, let mirrored = operation.mirrored else { return nil }
        func solve(_ x: Term, _ bound: Double, flipped: Bool = false) throws -> FetchPredicate.Node {
            try compare(x, flipped ? mirrored : operation, .constant(Self.bound(bound)), describing: expression)
        }
        switch (arithmetic, a, b) {
        case (.add, _, .constant(let c)):
            guard Self.givesIntegers(a), let k = Self.integer(c) else { return nil }
            return try solve(a, number - k)
        case (.add, .constant(let c), _):
            guard Self.givesIntegers(b), let k = Self.integer(c) else { return nil }
            return try solve(b, number - k)
        case (.subtract, _, .constant(let c)):
            guard Self.givesIntegers(a), let k = Self.integer(c) else { return nil }
            return try solve(a, number + k)
        case (.subtract, .constant(let c), _):
            // k − x ⋈ v  ⟺  x ⋈' k − v
            guard Self.givesIntegers(b), let k = Self.integer(c) else { return nil }
            return try solve(b, k - number, flipped: true)
        case (.multiply, _, .constant(let c)):
            guard Self.givesIntegers(a), let k = Self.integer(c), k != 0 else { return nil }
            return try solve(a, number / k, flipped: k < 0)
        case (.multiply, .constant(let c), _):
            guard Self.givesIntegers(b), let k = Self.integer(c), k != 0 else { return nil }
            return try solve(b, number / k, flipped: k < 0)
        default:
            return nil
        }
    }

    /// Below this, integers are exact as `Double`s.
    private static let exactIntegers = 9_007_199_254_740_992.0

    /// Whether a term gives integers only: an integer property, a count,
    /// or `+`, `-`, `*`, `%` of those and integers.
    static func givesIntegers(_ term: Term) -> Bool {
        switch term {
        case .path(_, _, .integer), .aggregate(.count, _): true
        case .constant(let value): integer(value) != nil
        case .arithmetic(let operation, let a, let b): operation != .divide && givesIntegers(a) && givesIntegers(b)
        default: false
        }
    }

    /// An integer known now, as an exact `Double`.
    static func integer(_ value: Any?) -> Double? {
        guard let integer = value as? any BinaryInteger, let number = Double(exactly: integer), abs(number) < exactIntegers else { return nil }
        return number
    }

    /// A bound for a comparison: an integer where it is one.
    private static func bound(_ number: Double) -> Any {
        number.rounded() == number && abs(number) < exactIntegers ? Int(number) : number
    }

    /// A computed value, as the Swift value it stands for.
    static func swiftValue(_ value: AttributeValue?) -> Any? {
        switch value {
        case .int(let number)?: Int(number)
        case .double(let number)?: number
        default: nil
        }
    }
}

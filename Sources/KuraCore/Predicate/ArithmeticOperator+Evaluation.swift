import Foundation

extension FetchPredicate.ArithmeticOperator {
    /// `left op right`: `nil` where either side is `nil` or not a number.
    /// Two integers give an integer (a `Double` where 64 bits overflow;
    /// `nil` for `modulus:by:` zero), except `/`, which gives a `Double`;
    /// `Double`s compute as in Swift (`1 / 0` is infinity), but what is not
    /// a number (`0 / 0`) is `nil`, which no order comparison matches.
    func apply(_ left: AttributeValue?, _ right: AttributeValue?) -> AttributeValue? {
        if case .int(let a)? = left, case .int(let b)? = right {
            if self == .modulus && b == 0 { return nil }
            if let exact = integer(a, b) { return exact }
        }
        guard let a = left?.numericValue, let b = right?.numericValue else { return nil }
        let result = switch self {
        case .add: a + b
        case .subtract: a - b
        case .multiply: a * b
        case .divide: a / b
        case .modulus: a.truncatingRemainder(dividingBy: b)
        }
        return result.isNaN ? nil : .double(result)
    }

    /// The integer result, or `nil` to compute with `Double`s (overflow, `/`).
    private func integer(_ a: Int64, _ b: Int64) -> AttributeValue? {
        let (value, overflow): (Int64, Bool)
        switch self {
        case .add: (value, overflow) = a.addingReportingOverflow(b)
        case .subtract: (value, overflow) = a.subtractingReportingOverflow(b)
        case .multiply: (value, overflow) = a.multipliedReportingOverflow(by: b)
        case .modulus: (value, overflow) = a.remainderReportingOverflow(dividingBy: b)
        case .divide: return nil
        }
        return overflow ? nil : .int(value)
    }
}

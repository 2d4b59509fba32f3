extension Int {
    /// `self + other`, or `Int.max` when that overflows (both non-negative).
    func saturatingAdding(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }

    /// `self * other`, or `Int.max` when that overflows (both non-negative).
    func saturatingMultiplied(by other: Int) -> Int {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? .max : product
    }
}

#if canImport(Darwin)
import Foundation

// The string expressions Foundation's macro builds on Apple platforms only
// (FOUNDATION_FRAMEWORK): `localizedStandardContains` and
// `caseInsensitiveCompare`. (Not compiled on Linux, where the macro refuses
// them: Kura's `KeyPathPredicate.compare(_:_:_:options:)` says the same.)

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension PredicateExpressions.StringLocalizedStandardContains: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        // Foundation's: case- and diacritic-insensitive; an empty string is
        // part of nothing, as in NSPredicate.
        let string = try conversion.expression(of: try conversion.term(of: root))
        let part = try conversion.expression(of: try conversion.term(of: other))
        return .condition(.comparison(string, .contains, part, [.caseInsensitive, .diacriticInsensitive], .direct))
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension PredicateExpressions.StringCaseInsensitiveCompare: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        .caseInsensitiveOrder(try conversion.term(of: root), try conversion.term(of: other))
    }
}
#endif

import Foundation
import Kura
@testable import KuraCore
import Testing

/// Long and deep Foundation predicates: converted in time linear in their
/// size, refused past the text's nesting limit, on any thread's stack.
@Suite struct FoundationPredicateDepthTests {
    typealias Variable = PredicateExpressions.Variable<News>

    /// `sortOrder == 0 && sortOrder == 1 && …` with `terms` comparisons, as
    /// `#Predicate` nests them (each `&&` takes the chain so far on its left).
    /// Built in a loop: a recursive builder's frames would hold every level.
    static func chain(_ terms: Int, _ variable: Variable) -> any StandardPredicateExpression<Bool> {
        func comparison(_ number: Int) -> some StandardPredicateExpression<Bool> {
            PredicateExpressions.build_Equal(
                lhs: PredicateExpressions.build_KeyPath(root: variable, keyPath: \News.sortOrder),
                rhs: PredicateExpressions.build_Arg(number))
        }
        func and<Chain: StandardPredicateExpression<Bool>>(_ chain: Chain, _ number: Int) -> any StandardPredicateExpression<Bool> {
            PredicateExpressions.build_Conjunction(lhs: chain, rhs: comparison(number))
        }
        var chain: any StandardPredicateExpression<Bool> = comparison(0)
        for number in 1..<terms { chain = and(chain, number) }
        return chain
    }

    /// `!(!(…(sortOrder == 0)…))` with `levels` negations.
    static func negations(_ levels: Int, _ variable: Variable) -> any StandardPredicateExpression<Bool> {
        func not<Inner: StandardPredicateExpression<Bool>>(_ inner: Inner) -> any StandardPredicateExpression<Bool> {
            PredicateExpressions.build_Negation(inner)
        }
        var expression: any StandardPredicateExpression<Bool> = PredicateExpressions.build_Equal(
            lhs: PredicateExpressions.build_KeyPath(root: variable, keyPath: \News.sortOrder),
            rhs: PredicateExpressions.build_Arg(0))
        for _ in 0..<levels { expression = not(expression) }
        return expression
    }

    static func convert(_ expression: any StandardPredicateExpression<Bool>, _ variable: Variable) throws -> FetchPredicate {
        try FetchPredicate(converting: expression, root: variable.key, variables: [])
    }

    @Test func aLongChainOfAndsConvertsToOneFlatAnd() throws {
        let variable = Variable()
        for terms in [3, 500, 2_000, 6_000] {
            let predicate = try Self.convert(Self.chain(terms, variable), variable)
            guard case .and(let parts) = predicate.root else {
                Issue.record("\(terms) terms: \(predicate.root)")
                continue
            }
            #expect(parts.count == terms)
            #expect(predicate.predicateFormat.hasPrefix("sortOrder == 0 AND sortOrder == 1 AND"))
        }
    }

    @Test func nestingPastTheTextsLimitIsTheTextsError() throws {
        let variable = Variable()
        #expect(throws: Never.self) { try Self.convert(Self.negations(FetchPredicate.maximumNesting - 1, variable), variable) }
        for levels in [FetchPredicate.maximumNesting + 1, 1_000, 5_000] {
            #expect(throws: KuraError.invalidPredicate("the predicate nests more than \(FetchPredicate.maximumNesting) levels deep")) {
                try Self.convert(Self.negations(levels, variable), variable)
            }
        }
        // The text's limit, the same: 101 NOTs.
        #expect(throws: PredicateSyntaxError.self) {
            try FetchPredicate(format: String(repeating: "NOT ", count: 101) + "sortOrder == 0")
        }
    }

    @Test func aLongChainConvertsOnAThreadWithASmallStack() throws {
        let variable = Variable()
        let expression = Self.chain(1_500, variable)
        let deep = Self.negations(3_000, variable)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var results: (Int?, String?) = (nil, nil)
        nonisolated(unsafe) let work = {
            if case .and(let parts)? = try? Self.convert(expression, variable).root { results.0 = parts.count }
            do { _ = try Self.convert(deep, variable) } catch { results.1 = "\(error)" }
            done.signal()
        }
        let thread = Thread { work() }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        #expect(results.0 == 1_500)
        #expect(results.1?.contains("nests more than") == true)
    }
}

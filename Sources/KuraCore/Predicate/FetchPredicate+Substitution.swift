extension FetchPredicate {
    /// A copy with each `$variable` replaced by its value in `variables`.
    ///
    /// ```swift
    /// let template: FetchPredicate = "objectId == $objectId"
    /// let one = try template.withSubstitutionVariables(["objectId": "A1"])   // objectId == "A1"
    /// ```
    ///
    /// Values are converted as `%@` arguments are (see ``init(format:_:)``);
    /// an array becomes a list, for `IN $ids`. The tree is rewritten, never
    /// re-parsed. Fetch request templates check the values' types against the
    /// model; see ``ManagedObjectModel/fetchRequestFromTemplate(withName:substitutionVariables:)``.
    ///
    /// - Throws: ``KuraError/missingSubstitutionVariable(_:)`` naming the first
    ///   variable without a value; ``KuraError/invalidPredicate(_:)`` for a
    ///   value that is not an attribute value.
    public func withSubstitutionVariables(_ variables: [String: Any]) throws -> FetchPredicate {
        try checkSyntax()
        var expressions: [(String, Expression)] = []
        for name in variableNames.sorted() {
            guard let value = variables[name] else { throw KuraError.missingSubstitutionVariable(name) }
            do {
                expressions.append((name, try PredicateArguments.expression(from: value)))
            } catch {
                throw KuraError.invalidPredicate("$\(name): \(error)")
            }
        }
        return FetchPredicate(root.substituting(expressions))
    }
}

extension FetchPredicate.Node {
    /// The tree with variables replaced; every free variable must have a
    /// value. A `SUBQUERY`'s own variable is left alone inside it.
    func substituting(_ values: [(String, FetchPredicate.Expression)]) -> FetchPredicate.Node {
        switch self {
        case .constant: self
        case .not(let node): .not(node.substituting(values))
        case .and(let nodes): .and(nodes.map { $0.substituting(values) })
        case .or(let nodes): .or(nodes.map { $0.substituting(values) })
        case .comparison(let left, let operation, let right, let options, let quantifier):
            .comparison(left.substituting(values), operation, right.substituting(values), options, quantifier)
        }
    }
}

extension FetchPredicate.Expression {
    func substituting(_ values: [(String, FetchPredicate.Expression)]) -> FetchPredicate.Expression {
        switch self {
        case .variable(let name): values.first { $0.0 == name }?.1 ?? self
        case .list(let elements): .list(elements.map { $0.substituting(values) })
        case .aggregate(let aggregate, let collection, let path): .aggregate(aggregate, collection.substituting(values), path)
        case .subquery(let collection, let variable, let predicate):
            .subquery(
                collection.substituting(values), variable,
                FetchPredicate(predicate.root.substituting(values.filter { $0.0 != variable })))
        case .arithmetic(let operation, let left, let right): .arithmetic(operation, left.substituting(values), right.substituting(values))
        case .key, .value, .object, .evaluatedObject, .variableKeyPath: self
        }
    }
}

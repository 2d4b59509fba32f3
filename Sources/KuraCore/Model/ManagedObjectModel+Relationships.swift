extension ManagedObjectModel {
    /// Resolves every relationship of `entities`: its destination, its
    /// inverse (named on either side or both), and where the store keeps it.
    /// Sets each entity's links.
    ///
    /// - Throws: ``KuraError/invalidModel(_:)`` for a destination that is not
    ///   in the model, an inverse that doesn't exist, points elsewhere or
    ///   names another relationship as its own inverse, a relationship that
    ///   would be its own inverse, two relationships claiming one inverse,
    ///   or an entity that is already part of another model.
    static func resolveRelationships(of entities: [EntityDescription], byName: [String: EntityDescription]) throws {
        for entity in entities where !entity.links.isEmpty {
            throw KuraError.invalidModel(
                "entity \(entity.name) is already part of another model; make a new EntityDescription for this one")
        }
        struct End: Hashable {
            let entity: ObjectIdentifier
            let number: Int
        }
        var inverseOf: [End: (EntityDescription, Int)] = [:]
        func name(_ entity: EntityDescription, _ number: Int) -> String {
            "\(entity.name).\(entity.declaredRelationships[number].name)"
        }
        func pair(_ entity: EntityDescription, _ number: Int, _ other: EntityDescription, _ otherNumber: Int) throws {
            let end = End(entity: ObjectIdentifier(entity), number: number)
            let otherEnd = End(entity: ObjectIdentifier(other), number: otherNumber)
            guard end != otherEnd else {
                throw KuraError.invalidModel("\(name(entity, number)) can't be its own inverse; declare two relationships")
            }
            for (from, to, toEntity, toNumber) in [(end, otherEnd, other, otherNumber), (otherEnd, end, entity, number)] {
                if let existing = inverseOf[from], End(entity: ObjectIdentifier(existing.0), number: existing.1) != to {
                    let fromEntity = from == end ? entity : other
                    throw KuraError.invalidModel(
                        "\(name(fromEntity, from.number)) has two inverses: \(name(existing.0, existing.1)) and \(name(toEntity, toNumber))")
                }
                inverseOf[from] = (toEntity, toNumber)
            }
        }
        for entity in entities {
            for (number, relationship) in entity.declaredRelationships.enumerated() {
                // An inherited relationship is its owner's, inverse included.
                if entity.relationshipOwner(number) !== entity { continue }
                guard let destination = byName[relationship.destinationEntityName] else {
                    throw KuraError.invalidModel(
                        "\(name(entity, number)) points to entity \(relationship.destinationEntityName), which is not in the model")
                }
                guard let inverseName = entity.declaredInverseName(number) else { continue }
                guard let inverseNumber = destination.relationshipNumbers[inverseName] else {
                    throw KuraError.invalidModel(
                        "the inverse of \(name(entity, number)), \(destination.name).\(inverseName), is not a relationship of \(destination.name)")
                }
                guard destination.relationshipOwner(inverseNumber) === destination else {
                    throw KuraError.invalidModel(
                        "the inverse of \(name(entity, number)), \(destination.name).\(inverseName), is inherited from "
                            + "\(destination.relationshipOwner(inverseNumber).name): point the relationship at that entity")
                }
                let inverse = destination.declaredRelationships[inverseNumber]
                guard inverse.destinationEntityName == entity.name else {
                    throw KuraError.invalidModel(
                        "\(name(entity, number)) names \(destination.name).\(inverseName) as its inverse, "
                            + "but that points to \(inverse.destinationEntityName), not \(entity.name)")
                }
                if let back = destination.declaredInverseName(inverseNumber), back != relationship.name {
                    throw KuraError.invalidModel(
                        "\(name(entity, number)) names \(destination.name).\(inverseName) as its inverse, "
                            + "but that names \(entity.name).\(back) as its own")
                }
                try pair(entity, number, destination, inverseNumber)
            }
        }
        for entity in entities {
            entity.links = entity.declaredRelationships.enumerated().map { number, declared in
                let destination = byName[declared.destinationEntityName]!
                let inverse = inverseOf[End(entity: ObjectIdentifier(entity.relationshipOwner(number)), number: number)]
                var resolved = declared
                resolved.inverseName = inverse.map { $0.0.declaredRelationships[$0.1].name }
                return RelationshipLink(
                    description: resolved, number: number, source: entity, destination: destination,
                    inverseNumber: inverse?.1)
            }
        }
    }
}

/// Key paths in a predicate: the relationships they follow, then the
/// attribute (or composite field) they end at, as the compiler types them.
extension PredicateCompiler {
    /// A key path from `origin` (an object of `entity`): relationships, then
    /// at most an attribute.
    func typedPath(_ path: String, from origin: CompiledPath.Origin, entity start: EntityDescription) throws -> Typed {
        let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var hops: [RelationshipLink] = []
        var current = start
        for (position, name) in components.enumerated() {
            if let link = current.link(named: name) {
                hops.append(link)
                current = link.destination
                continue
            }
            // A composite's field takes the rest of the path (`address.city`).
            let rest = components[position...].joined(separator: ".")
            if position < components.count - 1, let number = current.attributeNumber(named: rest) {
                let compiled = CompiledPath(origin: origin, hops: hops, attribute: number, entity: current)
                return Typed(operand: .path(compiled), kind: .attribute(current.attributes[number], current),
                             isCollection: compiled.isToMany, isSimple: false)
            }
            if let composite = current.composite(named: name) {
                // The fields under what the path names: the whole composite, or a value nested in it (`place.geo`).
                let prefix = components[(position + 1)...].joined(separator: ".")
                let fields = composite.table.paths.filter { prefix.isEmpty || $0.hasPrefix(prefix + ".") }
                let what = prefix.isEmpty ? "\(current.name).\(name) is a composite attribute"
                    : fields.isEmpty ? "\(current.name).\(name) has no field \(prefix)"
                    : "\(current.name).\(rest) is a value nested in the composite attribute \(name), not a field"
                let listed = (fields.isEmpty ? composite.table.paths : fields).prefix(6).map { "\(name).\($0)" }.joined(separator: ", ")
                throw KuraError.invalidPredicate(
                    "\(path): \(what): compare its fields (\(listed))"
                        + (fields.isEmpty ? "" : "; to test that it is nil, test that each of them is"))
            }
            if let number = current.attributeNumber(named: name) {
                guard position == components.count - 1 else {
                    throw KuraError.invalidPredicate(
                        "\(path): \(current.name).\(name) is an attribute, so nothing follows it (only relationships do)")
                }
                let compiled = CompiledPath(origin: origin, hops: hops, attribute: number, entity: current)
                return Typed(operand: .path(compiled), kind: .attribute(current.attributes[number], current),
                             isCollection: compiled.isToMany, isSimple: false)
            }
            if (name == "entity" || name == "entity.name") && !hops.isEmpty {
                // Core Data tests a destination's entity; Kura only the evaluated object's.
                throw KuraError.invalidPredicate(
                    "\(path): only the evaluated object's own entity can be tested (entity == '\(current.name)'), "
                        + "not the entity of an object reached through \(hops.map(\.name).joined(separator: ".")): "
                        + "fetch \(current.name) with entity == '…' and the relationship's inverse instead, "
                        + "or give the entity an attribute that says its kind")
            }
            throw KuraError.unknownAttribute(entity: current.name, key: name)
        }
        let compiled = CompiledPath(origin: origin, hops: hops, attribute: nil, entity: current)
        return Typed(operand: .path(compiled), kind: .objects(current), isCollection: compiled.isToMany, isSimple: false)
    }
}

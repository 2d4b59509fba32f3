/// A composite attribute of an entity (see ``Composite``): the attributes
/// whose names start with its name and a dot, which store its fields.
struct CompositeLayout: Sendable {
    /// The composite's name (`address`).
    let name: String
    /// Its fields, by path inside the value (`city`).
    let table: CompositeFieldTable
    /// The attribute storing each field, in the table's order.
    let attributeNumbers: [Int]
}

extension EntityDescription {
    /// The composite attributes of `attributes`: each run of attributes
    /// whose names start with the same first component and a dot
    /// (`address.street`, `address.city`), in order of first appearance.
    ///
    /// - Throws: ``KuraError/invalidModel(_:)`` when a composite's name is
    ///   also a property's, or a field's path is also a nested value's.
    static func composites(
        of attributes: [AttributeDescription], relationshipNames: some Sequence<String>, entity: String
    ) throws -> [CompositeLayout] {
        var order: [String] = []
        var members: [String: [Int]] = [:]
        for (number, attribute) in attributes.enumerated() {
            guard let dot = attribute.name.firstIndex(of: ".") else { continue }
            let name = String(attribute.name[..<dot])
            if members[name] == nil { order.append(name) }
            members[name, default: []].append(number)
        }
        let propertyNames = Set(attributes.map(\.name)).union(relationshipNames)
        return try order.map { name in
            guard !propertyNames.contains(name) else {
                throw KuraError.invalidModel("\(entity).\(name) is both a property and a composite attribute's name")
            }
            let numbers = members[name]!
            let table = CompositeFieldTable(
                paths: numbers.map { String(attributes[$0].name.dropFirst(name.count + 1)) },
                initialValues: numbers.map { attributes[$0].defaultValue })
            if let clash = table.paths.first(where: { table.nestedPaths.contains($0) }) {
                throw KuraError.invalidModel("\(entity).\(name).\(clash) is both a field and a value holding fields")
            }
            return CompositeLayout(name: name, table: table, attributeNumbers: numbers)
        }
    }

    /// The composite attribute called `name`, or `nil`.
    func composite(named name: String) -> CompositeLayout? {
        composites.first { $0.name == name }
    }
}

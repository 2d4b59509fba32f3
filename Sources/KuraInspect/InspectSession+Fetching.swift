import Kura

extension InspectSession {
    /// A fetch request from `fetch`/`count` clauses, checked against the model.
    func request(for spec: FetchSpec, line: String) throws -> FetchRequest {
        let entity = try entity(named: spec.entity)
        var request = FetchRequest(entityName: entity.name)
        if let text = spec.predicate {
            do {
                request.predicate = try FetchPredicate(format: text)
            } catch {
                throw InspectError(error, line: line, predicateOffset: spec.predicateOffset)
            }
        }
        for (key, ascending) in spec.sorts {
            guard entity.attribute(named: key) != nil else {
                throw InspectError("\(entity.name) has no attribute '\(key)' to sort by")
            }
            request.sortDescriptors.append(FetchSortDescriptor(key: key, ascending: ascending))
        }
        request.fetchLimit = spec.limit ?? 0
        request.fetchOffset = spec.offset ?? 0
        return request
    }

    /// The request of template `name`, each `var=value` read by the type of
    /// the attribute its variable is compared with.
    func templateRequest(_ name: String, _ arguments: [TemplateArgument]) throws -> FetchRequest {
        guard let variables = model.templateVariables(forName: name) else {
            let known = model.fetchRequestTemplatesByName.keys.sorted().joined(separator: ", ")
            throw InspectError("unknown template '\(name)'; the store has \(known.isEmpty ? "none" : known)")
        }
        for argument in arguments where !variables.contains(where: { $0.name == argument.name }) {
            let names = variables.map { "$\($0.name)" }.joined(separator: ", ")
            throw InspectError("template \(name) has no variable $\(argument.name); it takes \(names.isEmpty ? "none" : names)")
        }
        var values: [String: Any] = [:]
        for variable in variables {
            guard let argument = arguments.last(where: { $0.name == variable.name }) else {
                throw InspectError("template \(name) needs a value for $\(variable.name) (\(variable.type.displayName)): template \(name) \(variable.name)=…")
            }
            do {
                values[variable.name] = try ValueParser.parse(argument.value, as: variable.type, isList: variable.isList, variable: variable.name)
            } catch {
                throw InspectError("\(error)")
            }
        }
        return try model.fetchRequestFromTemplate(withName: name, substitutionVariables: values)
    }

    /// Prints the objects `request` fetches; with `returnsNothing` (`limit 0`),
    /// checks the request and prints none.
    func fetch(_ request: FetchRequest, returnsNothing: Bool = false) throws {
        let context = newContext()
        // Objects don't keep their context alive; relationships read through it.
        defer { withExtendedLifetime(context) {} }
        let objects: [ManagedObject]
        if returnsNothing {
            _ = try context.explain(request)  // still checked against the model
            objects = []
        } else {
            objects = try context.fetch(request)
        }
        let entity = try entity(named: request.entityName)
        if mode == .json {
            for object in objects { print(JSONOutput.line(try Self.json(object, entity: entity))) }
            return
        }
        // A to-one shows as its destination's ID, a to-many as its count.
        let headers = ["objectID"] + entity.attributes.map(\.name) + entity.relationships.map(\.name)
        let rows = try objects.map { object in
            [object.objectID.uriRepresentation] + (try entity.attributes.map { attribute in
                try object.value(forKey: attribute.name).map { "\($0)" } ?? "nil"
            }) + (try entity.relationships.map { relationship in
                relationship.isToMany
                    ? "\(try object.objects(forKey: relationship.name).count) \(relationship.destinationEntityName)"
                    : try object.object(forKey: relationship.name)?.objectID.uriRepresentation ?? "nil"
            })
        }
        let numeric = Set(entity.attributes.enumerated().filter { $0.element.type.isNumeric }.map { $0.offset + 1 })
        print(table.format(headers: headers, rows: rows, rightAligned: numeric))
        print("(\(objects.count) \(objects.count == 1 ? "object" : "objects"))")
    }

    /// An object as JSON: its attributes, its to-ones as destination IDs,
    /// its to-manys as lists of IDs (in order for ordered ones).
    static func json(_ object: ManagedObject, entity: EntityDescription) throws -> [String: Any] {
        var fields: [String: Any] = ["objectID": object.objectID.uriRepresentation]
        for attribute in entity.attributes {
            fields[attribute.name] = JSONOutput.value(try object.value(forKey: attribute.name))
        }
        for relationship in entity.relationships {
            if relationship.isToMany {
                // In order, or for a set by primary key (as objects(forKey:) gives them).
                fields[relationship.name] = try object.objects(forKey: relationship.name).map(\.objectID.uriRepresentation)
            } else {
                fields[relationship.name] = try object.object(forKey: relationship.name)?.objectID.uriRepresentation ?? JSONOutput.value(nil)
            }
        }
        return fields
    }

    func count(_ request: FetchRequest, returnsNothing: Bool = false) throws {
        let context = newContext()
        if returnsNothing { _ = try context.explain(request) }
        let count = returnsNothing ? 0 : try context.count(for: request)
        print(mode == .json ? JSONOutput.line(["count": count]) : String(count))
    }

    func show(_ text: String) throws {
        let objectID = try model.objectID(forURIRepresentation: text)
        let context = newContext()
        defer { withExtendedLifetime(context) {} }
        let object = try context.existingObject(with: objectID)
        let entity = objectID.entity
        if mode == .json {
            print(JSONOutput.line(try Self.json(object, entity: entity)))
            return
        }
        let rows = try entity.attributes.map { attribute in
            [attribute.name, try object.value(forKey: attribute.name).map { "\($0)" } ?? "nil"]
        }
        print(objectID.uriRepresentation)
        print(table.format(headers: ["attribute", "value"], rows: rows))
        // The related objects, each by ID.
        var related: [[String]] = []
        for relationship in entity.relationships {
            let objects = relationship.isToMany
                ? try object.objects(forKey: relationship.name)
                : (try object.object(forKey: relationship.name)).map { [$0] } ?? []
            if objects.isEmpty { related.append([relationship.name, "(none)"]) }
            for destination in objects.prefix(20) { related.append([relationship.name, destination.objectID.uriRepresentation]) }
            if objects.count > 20 { related.append([relationship.name, "… and \(objects.count - 20) more"]) }
        }
        if !related.isEmpty { print(table.format(headers: ["relationship", "object"], rows: related)) }
    }

    func showPlan(_ request: FetchRequest) throws {
        let plan = try newContext().explain(request)
        print(mode == .json ? JSONOutput.line(["plan": plan.description, "index": plan.indexName ?? JSONOutput.value(nil)]) : plan.description)
    }

    /// Every object of `name` as JSON lines, read in batches so memory stays flat.
    func dump(_ name: String) throws {
        let entity = try entity(named: name)
        let batch = 1000
        var offset = 0
        while true {
            let context = newContext()
            let objects = try context.fetch(FetchRequest(entityName: entity.name).limited(to: batch, offset: offset))
            try withExtendedLifetime(context) {
                for object in objects { print(JSONOutput.line(try Self.json(object, entity: entity))) }
            }
            if objects.count < batch { return }
            offset += batch
        }
    }
}

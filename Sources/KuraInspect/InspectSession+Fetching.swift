import Foundation
import Kura

extension InspectSession {
    /// A fetch request from `fetch`/`count` clauses, checked against the model.
    func request(for spec: FetchSpec, line: String) throws -> FetchRequest<ManagedObject> {
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
    func templateRequest(_ name: String, _ arguments: [TemplateArgument]) throws -> FetchRequest<ManagedObject> {
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

    /// Prints the objects `request` fetches, all their properties or the
    /// chosen `columns` (attributes, relationships, key paths such as
    /// `author.name` or `tags.@count`, and `objectID`); with
    /// `returnsNothing` (`limit 0`), checks the request and prints none.
    func fetch(_ request: FetchRequest<ManagedObject>, columns: [String] = [], returnsNothing: Bool = false) throws {
        let context = newContext()
        // Objects don't keep their context alive; relationships read through it.
        defer { withExtendedLifetime(context) {} }
        if showsPlans || returnsNothing {
            let plan = try context.explain(request)  // still checked against the model
            if showsPlans { printPlan(plan, labelled: true) }
        }
        let entity = try entity(named: request.entityName)
        let headers: [String]
        let rows: [[Cell]]
        if columns.isEmpty {
            headers = try ObjectExport.columns(of: entity)
            let objects = returnsNothing ? [] : try context.fetch(request)
            rows = try objects.map { try ObjectExport.row(of: $0, entity: entity) }
        } else {
            headers = columns
            var dictionaries = request
            dictionaries.propertiesToFetch = columns.map { $0 == ObjectExport.idColumn ? "SELF" : $0 }
            let results = returnsNothing ? [] : try context.fetchDictionaries(dictionaries)
            rows = results.map { result in
                zip(columns, dictionaries.propertiesToFetch).map { column, key in
                    switch result[key] {
                    case .attribute(let value):
                        entity.attribute(named: key).map { Cell(value ?? nil, of: $0) } ?? Cell(value ?? nil)
                    case .toOne(let id): id.map { .text($0.uriRepresentation) } ?? .null
                    case .toMany(let ids):
                        .objectIDs(ids.map(\.uriRepresentation),
                                   destination: entity.relationships.first { $0.name == column }?.destinationEntityName ?? "objects")
                    case nil: .null
                    }
                }
            }
        }
        emit(headers: headers, rows: rows)
        if mode == .table {
            print("(\(rows.count) \(rows.count == 1 ? "object" : "objects"))")
        }
    }

    func count(_ request: FetchRequest<ManagedObject>, returnsNothing: Bool = false) throws {
        let context = newContext()
        if showsPlans || returnsNothing {
            let plan = try context.explain(request)
            if showsPlans { printPlan(plan, labelled: true) }
        }
        let count = returnsNothing ? 0 : try context.count(for: request)
        print(mode.isJSON ? JSONValue(["count": count]).text : String(count))
    }

    /// One object, every value whole: a `name = value` line each, then the
    /// objects it is related to.
    func show(_ text: String) throws {
        let objectID = try model.objectID(forURIRepresentation: text)
        let context = newContext()
        defer { withExtendedLifetime(context) {} }
        let object = try context.existingObject(with: objectID)
        let entity = objectID.entity
        let headers = try ObjectExport.columns(of: entity)
        let row = try ObjectExport.row(of: object, entity: entity)
        guard mode == .table else {
            emit(headers: headers, rows: [row])
            return
        }
        let attributes = 1...entity.attributes.count
        let nameWidth = headers.dropFirst().map(TerminalText.columns(of:)).max() ?? 0
        print(objectID.uriRepresentation)
        for position in attributes {
            let value = TerminalText.escaped(row[position].display(null: nullDisplay))
                .replacingOccurrences(of: "\n", with: "\n" + String(repeating: " ", count: nameWidth + 3))
            print(TerminalText.padded(headers[position], toColumns: nameWidth, left: true) + " = " + value)
        }
        // The related objects, each by ID.
        for (offset, relationship) in entity.relationships.enumerated() {
            let ids: [String] = switch row[1 + entity.attributes.count + offset] {
            case .objectIDs(let ids, _): ids
            case .text(let id): [id]
            default: []
            }
            let name = TerminalText.padded(relationship.name, toColumns: nameWidth, left: true)
            if ids.isEmpty { print(name + " = (none)") }
            for (position, id) in ids.prefix(20).enumerated() {
                print((position == 0 ? name + " = " : String(repeating: " ", count: nameWidth + 3)) + id)
            }
            if ids.count > 20 { print(String(repeating: " ", count: nameWidth + 3) + "… and \(ids.count - 20) more") }
        }
    }

    func showPlan(_ request: FetchRequest<ManagedObject>) throws {
        printPlan(try newContext().explain(request), labelled: false)
    }

    /// The plan; `labelled` before results (`.eqp on`), so it stands out from them.
    private func printPlan(_ plan: QueryPlan, labelled: Bool) {
        print(mode.isJSON ? JSONValue(["plan": plan.description, "index": plan.indexName.map(JSONValue.string) ?? .null]).text
                          : (labelled ? "plan: " : "") + plan.description)
    }

    /// Objects as JSON Lines or CSV, the form `kura import` reads.
    func export(_ spec: ExportSpec, line: String) throws {
        let request = try spec.fetch.map { try self.request(for: $0, line: line) }
        try ObjectExport.export(request, from: container, format: spec.format) { text in
            print(text)
            try checkOutput()
        }
    }

    /// A consistent copy of the store at `path`, while writers carry on.
    func backup(to path: String, compacting: Bool) throws {
        let start = ContinuousClock.now
        try container.store.backup(to: path, compacting: compacting)
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let elapsed = ContinuousClock.now - start
        if mode.isJSON {
            print(JSONValue(["backup": path, "bytes": size, "compacted": compacting]).text)
        } else {
            print("backed up to \(path) (\(Self.bytes(size))\(compacting ? ", compacted" : "")) in \(elapsed.formatted(.units(allowed: [.seconds, .milliseconds], fractionalPart: .show(length: 1))))")
        }
    }
}

import Foundation
import Kura

extension InspectSession {
    func showHelp() {
        print(SessionCommand.helpText)
    }

    func showEntities() throws {
        let context = newContext()
        let hasRelationships = model.entities.contains { !$0.relationships.isEmpty }
        var rows: [[String]] = []
        // As a tree: each sub-entity under its superentity, indented; a
        // superentity's count includes its sub-entities' objects.
        for (entity, depth) in Self.entityTree(model) {
            let count = try context.count(for: FetchRequest(entityName: entity.name))
            if mode.isJSON {
                emitJSON([
                    "name": entity.name, "objects": count,
                    "superentity": entity.superentity?.name as Any, "abstract": entity.isAbstract,
                    "attributes": entity.attributes.map(\.name), "relationships": entity.relationships.map(\.name),
                    "indexes": entity.indexes.map(\.name),
                ] as [String: Any])
            } else {
                let name = String(repeating: "  ", count: depth) + entity.name + (entity.isAbstract ? " (abstract)" : "")
                rows.append([name, String(count), entity.attributes.map(\.name).joined(separator: ", ")]
                    + (hasRelationships ? [entity.relationships.map(\.name).joined(separator: ", ")] : [])
                    + [entity.indexes.map(\.description).joined(separator: ", ")])
            }
        }
        if !mode.isJSON {
            let headers = ["entity", "objects", "attributes"] + (hasRelationships ? ["relationships"] : []) + ["indexes"]
            emit(headers: headers, text: rows, rightAligned: [1])
        }
    }

    /// The model's entities, each root followed by its sub-entities (depth
    /// first), with their depth below their root.
    static func entityTree(_ model: ManagedObjectModel) -> [(EntityDescription, Int)] {
        var tree: [(EntityDescription, Int)] = []
        func add(_ entity: EntityDescription, _ depth: Int) {
            tree.append((entity, depth))
            for subentity in entity.subentities { add(subentity, depth + 1) }
        }
        for entity in model.entities where entity.superentity == nil { add(entity, 0) }
        return tree
    }

    /// One entity's schema, or (for `nil`) every entity's, a blank line between them.
    func showSchema(_ name: String?) throws {
        guard let name else {
            for (position, entity) in model.entities.enumerated() {
                if position > 0 && !mode.isJSON { print("") }
                try showSchema(entity.name)
            }
            return
        }
        let entity = try entity(named: name)
        if mode.isJSON {
            emitJSON([
                "name": entity.name,
                "superentity": entity.superentity?.name as Any, "abstract": entity.isAbstract,
                "subentities": entity.subentities.map(\.name),
                "attributes": entity.attributes.map { attribute in
                    ["name": attribute.name, "type": attribute.type.displayName, "optional": attribute.isOptional,
                     "default": Cell(attribute.defaultValue).json] as [String: Any]
                },
                "relationships": entity.relationships.map { relationship in
                    ["name": relationship.name, "destination": relationship.destinationEntityName,
                     "inverse": relationship.inverseName as Any, "toMany": relationship.isToMany,
                     "ordered": relationship.isOrdered, "optional": relationship.isOptional,
                     "minimumCount": relationship.minimumCount, "maximumCount": relationship.maximumCount as Any,
                     "deleteRule": relationship.deleteRule.rawValue] as [String: Any]
                },
                "indexes": entity.indexes.map { ["name": $0.name, "attributes": $0.attributes, "unique": $0.isUnique] as [String: Any] },
            ] as [String: Any])
            return
        }
        var heading = "entity \(entity.name)"
        if entity.isAbstract { heading += " (abstract)" }
        if let superentity = entity.superentity { heading += ", a sub-entity of \(superentity.name)" }
        if !entity.subentities.isEmpty { heading += "; sub-entities: " + entity.subentities.map(\.name).joined(separator: ", ") }
        print(heading)
        emit(
            headers: ["attribute", "type", "optional", "default"],
            text: entity.attributes.map { attribute in
                [attribute.name, attribute.type.displayName, attribute.isOptional ? "yes" : "no",
                 attribute.defaultValue.map { "\($0)" } ?? "nil"]
            })
        if !entity.relationships.isEmpty {
            emit(
                headers: ["relationship", "destination", "kind", "inverse", "delete rule"],
                text: entity.relationships.map { relationship in
                    let kind = relationship.isToMany
                        ? (relationship.isOrdered ? "to-many, ordered" : "to-many")
                            + (relationship.minimumCount > 0 || relationship.maximumCount != nil
                               ? " (\(relationship.minimumCount)…\(relationship.maximumCount.map(String.init) ?? ""))" : "")
                        : (relationship.isOptional ? "to-one" : "to-one, required")
                    return [relationship.name, relationship.destinationEntityName, kind, relationship.inverseName ?? "none",
                            relationship.deleteRule.rawValue]
                })
        }
        if !entity.indexes.isEmpty {
            emit(
                headers: ["index", "attributes", "unique"],
                text: entity.indexes.map { [$0.name, $0.attributes.joined(separator: ", "), $0.isUnique ? "yes" : "no"] })
        }
    }

    func showTemplates() {
        let templates = model.fetchRequestTemplatesByName.sorted { $0.key < $1.key }
        var rows: [[String]] = []
        for (name, request) in templates {
            let variables = model.templateVariables(forName: name) ?? []
            let variableText = variables.map { "$\($0.name): \($0.type.displayName)\($0.isList ? " list" : "")" }
            if mode.isJSON {
                emitJSON([
                    "name": name, "entity": request.entityName,
                    "predicate": request.predicate?.predicateFormat as Any,
                    "variables": variables.map { ["name": $0.name, "type": $0.type.displayName, "attribute": $0.key, "list": $0.isList] as [String: Any] },
                ] as [String: Any])
            } else {
                rows.append([name, request.entityName, request.predicate?.predicateFormat ?? "(all)", variableText.joined(separator: ", ")])
            }
        }
        if !mode.isJSON {
            if templates.isEmpty {
                print("(no templates)")
            } else {
                emit(headers: ["template", "entity", "predicate", "variables"], text: rows)
            }
        }
    }
}

extension InspectSession {
    /// The store's model version and the versions it had before.
    func showHistory() throws {
        let history = try container.store.modelHistory()
        if mode.isJSON {
            for entry in history {
                emitJSON([
                    "version": entry.version as Any, "fingerprint": entry.fingerprint,
                    "date": Cell(.date(entry.date)), "change": entry.change,
                ] as [String: Any])
            }
            return
        }
        print("model version \(model.versionIdentifier ?? "(none)"), fingerprint \(model.fingerprint)")
        if history.isEmpty {
            print("no model history: the store predates it")
        } else {
            emit(
                headers: ["date", "version", "fingerprint", "change"],
                text: history.map { entry in
                    [entry.date.formatted(.iso8601), entry.version ?? "", entry.fingerprint, entry.change]
                })
        }
        let saves = try container.store.history()
        guard !saves.isEmpty else {
            print("no saves recorded (StoreOptions.tracksHistory is off, or the history was purged)")
            return
        }
        let shown = saves.suffix(Self.recordedSavesShown)
        print("saves recorded: \(saves.count)\(saves.count > shown.count ? ", the last \(shown.count) shown" : "")")
        emit(
            headers: ["token", "date", "author", "pid", "inserted", "updated", "deleted"],
            text: shown.map { save in
                [save.token.description, save.date.formatted(.iso8601), save.author ?? "", String(save.processIdentifier),
                 String(save.changes.insertedObjectIDs.count), String(save.changes.updatedObjectIDs.count),
                 String(save.changes.deletedObjectIDs.count)]
            }, rightAligned: [3, 4, 5, 6])
    }

    /// How many recorded saves `history` lists.
    static let recordedSavesShown = 20

    /// What a migration from this store's model to the model of the store
    /// at `path` would do, without doing it.
    func showDifferences(from path: String) throws {
        func resolved(_ path: String) -> String { URL(fileURLWithPath: path).resolvingSymlinksInPath().path }
        let target: ManagedObjectModel
        if resolved(path) == resolved(container.store.path) {
            target = model  // the store itself: it can't be opened twice in one process
        } else {
            var options = StoreOptions()
            options.isReadOnly = true
            let other = try PersistentContainer(path: path, options: options)
            target = other.model
            other.close()
        }
        let differences = container.store.differences(from: target)
        if mode.isJSON {
            for difference in differences {
                emitJSON([
                    "entity": difference.entity, "property": difference.property as Any,
                    "change": difference.description, "cost": "\(difference.cost)",
                ] as [String: Any])
            }
            return
        }
        guard !differences.isEmpty else {
            print("no migration needed")
            return
        }
        emit(
            headers: ["entity", "property", "change", "cost"],
            text: differences.map { difference in
                let cost = switch difference.cost {
                case .none: "none"
                case .modelOnly: "model only"
                case .touchesData: "reads objects"
                case .needsCustomStage: "custom stage"
                }
                let text = difference.description
                return [difference.entity, difference.property ?? "", String(text[..<(text.lastIndex(of: "(") ?? text.endIndex)])
                    .trimmingCharacters(in: .whitespaces), cost]
            })
    }
}

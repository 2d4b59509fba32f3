import Foundation
import Kura

extension InspectSession {
    static let helpText = """
        Commands (one per line; keywords are not case-sensitive):
          entities                          each entity: objects, attributes, indexes
          schema ENTITY                     an entity's attributes, relationships and indexes
          templates                         the fetch request templates and their variables
          fetch ENTITY [where PREDICATE] [sort KEY [asc|desc], …] [limit N] [offset N]
          count ENTITY [where PREDICATE]
          template NAME var=value …         run a template; values are read by the type of their attribute
          show OBJECTID                     one object and the objects it is related to, e.g. show kura://News/42
          plan fetch|count …                the query plan: the index used, or a scan
          stats                             map size and use, file size, transactions, readers, databases
          check                             pages, indexes, references and relationships (reports, never repairs)
          history                           the model versions the store has had, and its recorded saves
          diff STORE                        what opening this store with STORE's model would migrate
          dump ENTITY                       every object as JSON lines
          timer on|off                      print each command's run time
          mode table|json                   how results are printed
          quit                              leave (also Ctrl-D)
        Predicates use NSPredicate's syntax: title BEGINSWITH[c] "kura" AND sortOrder BETWEEN {1, 9},
        and key paths: author.name == "Ann", ANY tags.name == "swift", tags.@count > 2.
        A key spelled like a keyword (sort, limit, …) is written #sort.
        """

    func showHelp() {
        print(Self.helpText)
    }

    func showEntities() throws {
        let context = newContext()
        let hasRelationships = model.entities.contains { !$0.relationships.isEmpty }
        var rows: [[String]] = []
        for entity in model.entities {
            let count = try context.count(for: FetchRequest(entityName: entity.name))
            if mode == .json {
                print(JSONOutput.line([
                    "name": entity.name, "objects": count,
                    "attributes": entity.attributes.map(\.name), "relationships": entity.relationships.map(\.name),
                    "indexes": entity.indexes.map(\.name),
                ] as [String: Any]))
            } else {
                rows.append([entity.name, String(count), entity.attributes.map(\.name).joined(separator: ", ")]
                    + (hasRelationships ? [entity.relationships.map(\.name).joined(separator: ", ")] : [])
                    + [entity.indexes.map(\.description).joined(separator: ", ")])
            }
        }
        if mode == .table {
            let headers = ["entity", "objects", "attributes"] + (hasRelationships ? ["relationships"] : []) + ["indexes"]
            print(table.format(headers: headers, rows: rows, rightAligned: [1]))
        }
    }

    func showSchema(_ name: String) throws {
        let entity = try entity(named: name)
        if mode == .json {
            print(JSONOutput.line([
                "name": entity.name,
                "attributes": entity.attributes.map { attribute in
                    ["name": attribute.name, "type": attribute.type.displayName, "optional": attribute.isOptional,
                     "default": JSONOutput.value(attribute.defaultValue)] as [String: Any]
                },
                "relationships": entity.relationships.map { relationship in
                    ["name": relationship.name, "destination": relationship.destinationEntityName,
                     "inverse": relationship.inverseName ?? JSONOutput.value(nil), "toMany": relationship.isToMany,
                     "ordered": relationship.isOrdered, "optional": relationship.isOptional,
                     "minimumCount": relationship.minimumCount, "maximumCount": relationship.maximumCount ?? JSONOutput.value(nil),
                     "deleteRule": relationship.deleteRule.rawValue] as [String: Any]
                },
                "indexes": entity.indexes.map { ["name": $0.name, "attributes": $0.attributes, "unique": $0.isUnique] as [String: Any] },
            ] as [String: Any]))
            return
        }
        print("entity \(entity.name)")
        print(table.format(
            headers: ["attribute", "type", "optional", "default"],
            rows: entity.attributes.map { attribute in
                [attribute.name, attribute.type.displayName, attribute.isOptional ? "yes" : "no",
                 attribute.defaultValue.map { "\($0)" } ?? "nil"]
            }))
        if !entity.relationships.isEmpty {
            print(table.format(
                headers: ["relationship", "destination", "kind", "inverse", "delete rule"],
                rows: entity.relationships.map { relationship in
                    let kind = relationship.isToMany
                        ? (relationship.isOrdered ? "to-many, ordered" : "to-many")
                            + (relationship.minimumCount > 0 || relationship.maximumCount != nil
                               ? " (\(relationship.minimumCount)…\(relationship.maximumCount.map(String.init) ?? ""))" : "")
                        : (relationship.isOptional ? "to-one" : "to-one, required")
                    return [relationship.name, relationship.destinationEntityName, kind, relationship.inverseName ?? "none",
                            relationship.deleteRule.rawValue]
                }))
        }
        if !entity.indexes.isEmpty {
            print(table.format(
                headers: ["index", "attributes", "unique"],
                rows: entity.indexes.map { [$0.name, $0.attributes.joined(separator: ", "), $0.isUnique ? "yes" : "no"] }))
        }
    }

    func showTemplates() {
        let templates = model.fetchRequestTemplatesByName.sorted { $0.key < $1.key }
        var rows: [[String]] = []
        for (name, request) in templates {
            let variables = model.templateVariables(forName: name) ?? []
            let variableText = variables.map { "$\($0.name): \($0.type.displayName)\($0.isList ? " list" : "")" }
            if mode == .json {
                print(JSONOutput.line([
                    "name": name, "entity": request.entityName,
                    "predicate": request.predicate?.predicateFormat ?? JSONOutput.value(nil),
                    "variables": variables.map { ["name": $0.name, "type": $0.type.displayName, "attribute": $0.key, "list": $0.isList] as [String: Any] },
                ] as [String: Any]))
            } else {
                rows.append([name, request.entityName, request.predicate?.predicateFormat ?? "(all)", variableText.joined(separator: ", ")])
            }
        }
        if mode == .table {
            print(templates.isEmpty ? "(no templates)" : table.format(headers: ["template", "entity", "predicate", "variables"], rows: rows))
        }
    }
}

extension InspectSession {
    /// The store's model version and the versions it had before.
    func showHistory() throws {
        let history = try container.store.modelHistory()
        if mode == .json {
            for entry in history {
                print(JSONOutput.line([
                    "version": entry.version ?? JSONOutput.value(nil), "fingerprint": entry.fingerprint,
                    "date": JSONOutput.value(.date(entry.date)), "change": entry.change,
                ] as [String: Any]))
            }
            return
        }
        print("model version \(model.versionIdentifier ?? "(none)"), fingerprint \(model.fingerprint)")
        if history.isEmpty {
            print("no model history: the store predates it")
        } else {
            print(table.format(
                headers: ["date", "version", "fingerprint", "change"],
                rows: history.map { entry in
                    [entry.date.formatted(.iso8601), entry.version ?? "", entry.fingerprint, entry.change]
                }))
        }
        let saves = try container.store.history()
        guard !saves.isEmpty else {
            print("no saves recorded (StoreOptions.tracksHistory is off, or the history was purged)")
            return
        }
        let shown = saves.suffix(Self.recordedSavesShown)
        print("saves recorded: \(saves.count)\(saves.count > shown.count ? ", the last \(shown.count) shown" : "")")
        print(table.format(
            headers: ["token", "date", "author", "pid", "inserted", "updated", "deleted"],
            rows: shown.map { save in
                [save.token.description, save.date.formatted(.iso8601), save.author ?? "", String(save.processIdentifier),
                 String(save.changes.insertedObjectIDs.count), String(save.changes.updatedObjectIDs.count),
                 String(save.changes.deletedObjectIDs.count)]
            }, rightAligned: [3, 4, 5, 6]))
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
        if mode == .json {
            for difference in differences {
                print(JSONOutput.line([
                    "entity": difference.entity, "property": difference.property ?? JSONOutput.value(nil),
                    "change": difference.description, "cost": "\(difference.cost)",
                ] as [String: Any]))
            }
            return
        }
        guard !differences.isEmpty else {
            print("no migration needed")
            return
        }
        print(table.format(
            headers: ["entity", "property", "change", "cost"],
            rows: differences.map { difference in
                let cost = switch difference.cost {
                case .none: "none"
                case .modelOnly: "model only"
                case .touchesData: "reads objects"
                case .needsCustomStage: "custom stage"
                }
                let text = difference.description
                return [difference.entity, difference.property ?? "", String(text[..<(text.lastIndex(of: "(") ?? text.endIndex)])
                    .trimmingCharacters(in: .whitespaces), cost]
            }))
    }
}

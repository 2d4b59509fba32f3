// What the store's model holds, and one object whole.

extension SessionCommand {
    static let entities = SessionCommand(
        "entities", aliases: [".tables"], section: .reading, help: "entities                  entities: objects, attributes, indexes"
    ) { input throws(CommandError) in
        try input.none()
        return { session in try session.showEntities(); return true }
    }

    /// One entity's schema, or every entity's.
    static let schema = SessionCommand(
        "schema", aliases: [".schema"], section: .reading, help: "schema [ENTITY]           attributes, relationships, indexes"
    ) { input throws(CommandError) in
        let name = input.words.isEmpty ? nil : try input.single("entity")
        return { session in try session.showSchema(name); return true }
    }

    static let show = SessionCommand(
        "show", section: .reading, help: "show OBJECTID             one object, whole values: show kura://News/4"
    ) { input throws(CommandError) in
        let id = try input.single("object ID")
        return { session in try session.show(id); return true }
    }
}

import Foundation
import Kura
import Testing

enum TicketStatus: String, Codable, AttributeValueConvertible {
    case open, inProgress, closed
}

enum TicketPriority: Int, AttributeValueConvertible {
    case low = 1, normal = 5, urgent = 9
}

final class Ticket: ManagedObject {
    @Attribute var title: String = ""
    @Attribute(.indexed) var status: TicketStatus = .open
    @Attribute var priority: TicketPriority = .normal
    @Attribute var previous: TicketStatus?
}

/// The same entity as a newer build declares it: its status has a case
/// the older build's doesn't.
enum NewerTicketStatus: String, AttributeValueConvertible {
    case open, inProgress, closed, archived
}

final class NewerTicket: ManagedObject {
    override class var entityName: String { "Ticket" }
    @Attribute var title: String = ""
    @Attribute(.indexed) var status: NewerTicketStatus = .open
    @Attribute var priority: TicketPriority = .normal
    @Attribute var previous: NewerTicketStatus?
}

/// Enumerations (`RawRepresentable` types) as attributes: stored, indexed,
/// compared and sorted by raw value.
@Suite struct EnumerationAttributeTests {
    static func tickets(_ context: ManagedObjectContext) throws {
        for (number, (status, priority)) in [(TicketStatus.open, TicketPriority.urgent), (.closed, .low), (.inProgress, .normal),
                                             (.open, .low), (.closed, .urgent)].enumerated() {
            let ticket = Ticket(context: context)
            ticket.title = "ticket \(number)"
            ticket.status = status
            ticket.priority = priority
        }
        try context.save()
    }

    @Test func anEnumerationIsStoredAsItsRawValueAndReadBack() throws {
        let store = try TestStore()
        let model = try ManagedObjectModel(Ticket.self)
        #expect(model.entity(named: "Ticket")?.attributes.map(\.type) == [.string, .string, .int64, .string])
        let container = try store.open(model)
        let context = container.newContext()
        let ticket = Ticket(context: context)
        #expect(ticket.status == .open && ticket.priority == .normal && ticket.previous == nil)
        ticket.status = .inProgress
        ticket.previous = .open
        try context.save()

        let reader = container.newContext()
        let read = try reader.existingObject(with: ticket.objectID) as! Ticket
        #expect(read.status == .inProgress && read.previous == .open && read.priority == .normal)
        #expect(try read.value(forKey: "status") == .string("inProgress"))
        #expect(try read.value(forKey: "priority") == .int(5))
        #expect(try read.value(forKey: "status", as: TicketStatus.self) == .inProgress)
        read.previous = nil
        try reader.save()
        #expect(try container.newContext().fetch(FetchRequest<Ticket>())[0].previous == nil)
    }

    @Test func predicatesOfEveryKindCompareRawValues() throws {
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(Ticket.self))
        let context = container.newContext()
        try Self.tickets(context)

        let byKeyPath = try context.fetch(FetchRequest<Ticket>(predicate: \.status == .open))
        let byText = try context.fetch(FetchRequest<Ticket>(predicate: try FetchPredicate(format: "status == 'open'")))
        let wanted = TicketStatus.open
        let byFoundation = try context.fetch(FetchRequest<Ticket>(predicate: #Predicate { $0.status == wanted }))
        let open = ["ticket 0", "ticket 3"]
        #expect(byKeyPath.map(\.title).sorted() == open)
        #expect(byText.map(\.title).sorted() == open)
        #expect(byFoundation.map(\.title).sorted() == open)
        for _ in 0..<300 { Ticket(context: context).status = .closed }
        try context.save()
        let plan = "\(try context.explain(FetchRequest<Ticket>(predicate: \.status == .open)))"
        #expect(plan.contains("INDEX status"), "\(plan)")
        let urgentOrNormal = try context.fetch(FetchRequest<Ticket>(predicate: \.priority >= .normal))
        #expect(urgentOrNormal.map(\.title).sorted() == Array(repeating: "", count: 300) + ["ticket 0", "ticket 2", "ticket 4"])
        let inList = try context.count(for: FetchRequest<Ticket>(predicate: .in(\.status, [.inProgress, .closed])))
        #expect(inList == 303)
    }

    @Test func anEnumerationSortsByRawValue() throws {
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(Ticket.self))
        let context = container.newContext()
        try Self.tickets(context)
        let byPriority = try context.fetch(FetchRequest<Ticket>(sortBy: [FetchSortDescriptor(key: "priority"), FetchSortDescriptor(key: "title")]))
        #expect(byPriority.map(\.priority) == [.low, .low, .normal, .urgent, .urgent])
        let byStatus = try context.fetch(FetchRequest<Ticket>(sortBy: [FetchSortDescriptor(key: "status"), FetchSortDescriptor(key: "title")]))
        #expect(byStatus.map(\.status) == [.closed, .closed, .inProgress, .open, .open], "raw values in order: closed, inProgress, open")
    }

    @Test func aRawValueWithNoCaseReadsAsTheInitialValueAndIsKept() throws {
        let store = try TestStore(engine: .lmdb)
        let newer = try PersistentContainer(path: store.path, model: ManagedObjectModel(NewerTicket.self))
        let writer = newer.newContext()
        let ticket = NewerTicket(context: writer)
        ticket.title = "from a newer build"
        ticket.status = .archived
        ticket.previous = .archived
        try writer.save()
        let id = ticket.objectID.uriRepresentation
        newer.close()

        // The older build: no `archived`.
        let older = try PersistentContainer(path: store.path, model: ManagedObjectModel(Ticket.self))
        let context = older.newContext()
        let read = try #require(try context.fetch(FetchRequest<Ticket>()).first)
        #expect(read.status == .open, "the initial value, not a trap")
        #expect(read.previous == nil)
        let error = try #require(throws: KuraError.self) { try read.value(forKey: "status", as: TicketStatus.self) }
        #expect(error.code == .typeMismatch && "\(error)".contains("archived"))
        #expect(try context.count(for: FetchRequest<Ticket>(predicate: try FetchPredicate(format: "status == 'archived'"))) == 1)
        // Changing another attribute keeps what was stored.
        read.title = "touched by the older build"
        try context.save()
        older.close()

        let again = try PersistentContainer(path: store.path, model: ManagedObjectModel(NewerTicket.self))
        let reread = try #require(try again.newContext().fetch(FetchRequest<NewerTicket>()).first)
        #expect(reread.status == .archived && reread.previous == .archived && reread.title == "touched by the older build")
        #expect(reread.objectID.uriRepresentation == id)
    }

    /// Version 2 of `Ticket`: priorities by name (raw values of another type).
    enum NamedPriority: String, AttributeValueConvertible {
        case low, normal, urgent
    }

    final class TicketV2: ManagedObject {
        override class var entityName: String { "Ticket" }
        @Attribute var title: String = ""
        @Attribute(.indexed) var status: TicketStatus = .open
        @Attribute var priority: NamedPriority = .normal
        @Attribute var previous: TicketStatus?
    }

    @Test func aRawValueTypeChangeIsACustomStageThatMapsTheOldRawValues() throws {
        let store = try EngineStore(.underTest)
        let v1 = try ManagedObjectModel(Ticket.self, versionIdentifier: "1")
        let container = try store.open(v1)
        let context = container.newContext()
        for (title, priority) in [("a", TicketPriority.low), ("b", .urgent), ("c", .normal)] {
            let ticket = Ticket(context: context)
            ticket.title = title
            ticket.priority = priority
        }
        try context.save()
        let v2 = try ManagedObjectModel(TicketV2.self, versionIdentifier: "2")
        // Inferred, an Int64 attribute can't become a String one: the open
        // says which stage is needed and changes nothing.
        #expect(throws: KuraError.self) { try store.reopen(container, v2) }
        let names: [Int64: NamedPriority] = [1: .low, 5: .normal, 9: .urgent]
        let stage = MigrationStage.custom(from: v1, to: v2, didMigrate: { migration in
            for ticket in try migration.context.fetch(FetchRequest<TicketV2>()) {
                guard case .int(let old)? = try migration.oldValue(forKey: "priority", of: ticket) else { continue }
                ticket.priority = names[old] ?? .normal
            }
        })
        let migrated = try store.open(v2, migration: MigrationOptions(plan: MigrationPlan([stage])))
        let tickets = try migrated.newContext().fetch(FetchRequest<TicketV2>().sorted(by: \.title))
        #expect(tickets.map(\.priority) == [.low, .urgent, .normal])
        #expect(try migrated.newContext().count(for: FetchRequest<TicketV2>(predicate: \.priority == .urgent)) == 1)
    }
}

import Foundation
import Kura
import KuraTestSupport
import Testing

/// What happens when an object is used after it left its context, deleted
/// twice, or saved from inside a save: no-ops and errors, and traps only
/// for programming errors, each with a message.
@Suite struct MisuseTests {
    @Test func deletingAnObjectTwiceOrAfterItLeftItsContextDoesNothing() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let inserted = News(context: context)
        context.delete(inserted)
        context.delete(inserted)                       // an inserted object deleted twice
        #expect(!context.hasChanges)

        let saved = News(context: context)
        try context.save()
        context.delete(saved)
        context.delete(saved)                          // twice before the save
        #expect(context.deletedObjects.count == 1)
        try context.save()
        context.delete(saved)                          // after its deletion was saved
        #expect(!context.hasChanges)

        let rolledBack = News(context: context)
        context.rollback()
        context.delete(rolledBack)                     // its insertion was rolled back
        let unregistered = News(entity: container.model.entity(named: "News")!, insertInto: nil)
        context.delete(unregistered)                   // never inserted
        #expect(!context.hasChanges)
        try context.save()
    }

    @Test func settingATypedPropertyOfADetachedObjectChangesOnlyTheObject() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let kept = News(context: context)
        kept.title = "saved"
        try context.save()

        context.reset()
        kept.title = "after reset"                      // typed: set in the object, not tracked
        #expect(kept.title == "after reset")
        #expect(kept.managedObjectContext == nil)
        #expect(!context.hasChanges)
        #expect(throws: KuraError.objectDetached(kept.objectID)) { try kept.setValue("again", forKey: "title") }

        let rolledBack = News(context: context)
        context.rollback()
        rolledBack.sortOrder = 7
        #expect(rolledBack.sortOrder == 7)
        #expect(throws: KuraError.objectDetached(rolledBack.objectID)) { try rolledBack.setValue(8, forKey: "sortOrder") }

        try context.save()
        let fresh = try container.newContext().fetch(News.fetchRequest(), as: News.self)
        #expect(fresh.map(\.title) == ["saved"], "nothing set on detached objects was saved")
    }

    @Test func savingFromInsideASaveThrowsAndTheOuterSaveGoesOn() throws {
        final class Reentrant: ManagedObject {
            @Attribute var name: String = ""
            nonisolated(unsafe) static var innerError: Error?
            override func willSave() {
                super.willSave()
                do { try managedObjectContext?.save() } catch { Self.innerError = error }
            }
        }
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(Reentrant.self))
        let context = container.newContext()
        Reentrant(context: context).name = "one"
        try context.save()
        #expect(Reentrant.innerError as? KuraError == .saveInProgress)
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Reentrant")) == 1)
    }

    @Test func readingAValueADetachedFaultNeverLoadedStopsWithAMessage() async throws {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = try TestStore()
            let container = try store.open(.news())
            let context = container.newContext()
            News(context: context).title = "x"
            try context.save()
            let other = container.newContext()
            let fault = try other.object(with: try context.fetch(News.fetchRequest())[0].objectID) as! News
            other.reset()
            _ = fault.title
        }.map { result in
            let text = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(text.contains("reading News.title of kura://News/1"), "\(text)")
            #expect(text.contains("no longer belongs to a context"), "\(text)")
        }
    }
}

@Suite struct ErrorTextTests {
    @Test func everyErrorReadsWellThroughLocalizedDescription() throws {
        let id = try ManagedObjectModel.news().objectID(forURIRepresentation: "kura://News/3")
        let errors: [(any Error, String)] = [
            (KuraError.unknownEntity("Nope"), "unknown entity 'Nope'"),
            (KuraError.objectNotFound(id), "no object kura://News/3 in the store"),
            (KuraError.storage(path: "/x.kura", failure: .diskFull), "'/x.kura': the disk is full"),
            (StorageFailure.fileSizeLimitReached, "the process's file size limit (ulimit -f) was reached"),
            (PredicateSyntaxError(format: "a >", position: 3, message: "expected a value after '>'"), "expected a value after '>' at position 3"),
            (ValidationFailure(objectID: id, key: "title", message: "is empty"), "kura://News/3 title: is empty"),
        ]
        for (error, text) in errors {
            #expect(error.localizedDescription == text)
        }
    }

    @Test func storageFailuresAreValuesAProgramCanMatch() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.file("no/such/dir/store.kura")
        do {
            _ = try PersistentContainer(path: missing, model: .news())
            Issue.record("opened a store in a missing directory")
        } catch let error as KuraError where error.storageFailure?.code == .system {
            #expect(error.path == missing && error.storageFailure?.number == Int(ENOENT))
        }
    }
}

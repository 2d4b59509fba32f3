import Foundation
import Kura
import KuraTestSupport
import Testing

/// Errors are structs matched by code: what each carries is reachable
/// through properties, equality compares code and details, and a code an
/// engine adds is matched the same way.
@Suite struct KuraErrorTests {
    @Test func aConflictIsMatchedByItsCodeAndNamesItsObjects() throws {
        let directory = try TemporaryDirectory()
        let container = try PersistentContainer(path: directory.file("store.kura"), model: .news())
        let first = container.newContext()
        let news = News(context: first)
        news.title = "one"
        try first.save()
        let second = container.newContext()
        let copy = try second.existingObject(with: news.objectID, as: News.self)
        copy.title = "two"
        try second.save()
        news.title = "three"
        var caught: [ObjectID] = []
        do {
            try first.save()
        } catch let error as KuraError where error.code == .conflict {
            caught = error.objectIDs
        }
        #expect(caught == [news.objectID])
    }

    @Test func eachDetailIsReachableThroughItsProperty() {
        let unique = KuraError.uniqueConstraintViolated(entity: "News", index: "objectId", values: ["a"], objectID: nil)
        #expect(unique.code == .uniqueConstraintViolated)
        #expect(unique.entity == "News" && unique.index == "objectId" && unique.values == ["a"] && unique.objectIDs.isEmpty)
        #expect(unique.path == nil && unique.storageFailure == nil)

        let failure = StorageFailure.system(errno: ENOENT, message: "No such file or directory")
        let storage = KuraError.storage(path: "/x.kura", failure: failure)
        #expect(storage.code == .storage && storage.path == "/x.kura")
        #expect(storage.storageFailure?.code == .system && storage.storageFailure?.number == Int(ENOENT))

        let mismatch = KuraError.typeMismatch(entity: "News", key: "title", expected: .string, found: "Int")
        #expect(mismatch.key == "title" && mismatch.mismatch?.found == "Int")
        #expect(KuraError.missingSubstitutionVariable("objectId").name == "objectId")
        #expect(KuraError.storeFull(maximumBytes: 4096).limit == 4096)
        #expect(KuraError.corruptStore(path: "/x", reason: "torn").reason == "torn")
    }

    @Test func equalityIsCodeAndDetailsAndTheTextIsUnchanged() {
        #expect(KuraError.storeClosed(path: "/a") == .storeClosed(path: "/a"))
        #expect(KuraError.storeClosed(path: "/a") != .storeClosed(path: "/b"))
        #expect(KuraError.storeClosed(path: "/a") != .storeReadOnly(path: "/a"))
        #expect(KuraError.saveInProgress.code == .saveInProgress)
        #expect("\(KuraError.storeClosed(path: "/a"))" == "the store '/a' is closed")
        #expect(KuraError.conflict(objectIDs: []).localizedDescription.hasPrefix("another context changed"))
    }

    @Test func anEnginesOwnFailureCodesAreMatchedLikeTheCoresOnes() {
        // The LMDB engine's codes live in the Kura module, not in KuraCore.
        let linked = StorageFailure.hardLinked(links: 2)
        #expect(linked.code == .hardLinked && linked.number == 2)
        #expect(linked != StorageFailure.hardLinked(links: 3))
        #expect(StorageFailure.alreadyOpen.code == .alreadyOpen)
        // Any product can add one.
        let custom = StorageFailure(code: StorageFailure.Code(rawValue: "quotaExceeded"), message: "over quota")
        #expect(custom.code.rawValue == "quotaExceeded" && "\(custom)" == "over quota")
        #expect(custom.code != .diskFull)
    }

    @Test func aCodeIsACatchPattern() {
        func caught(_ error: any Error) -> String {
            do {
                throw error
            } catch KuraError.Code.conflict {
                return "conflict"
            } catch StorageFailure.Code.diskFull {
                return "disk full"
            } catch KuraError.Code.storage {
                return "storage"
            } catch {
                return "other"
            }
        }
        #expect(caught(KuraError.conflict(objectIDs: [])) == "conflict")
        #expect(caught(KuraError.storage(path: "/x", failure: .diskFull)) == "disk full")
        #expect(caught(StorageFailure.diskFull) == "disk full")
        #expect(caught(KuraError.storage(path: "/x", failure: .permissionDenied("no"))) == "storage")
        #expect(caught(KuraError.saveInProgress) == "other")
        #expect(caught(CancellationError()) == "other")
        // A switch over a code still matches codes by ==.
        switch KuraError.saveInProgress.code {
        case .saveInProgress: break
        default: Issue.record("a code's switch no longer matches")
        }
    }
}

import Foundation
import Kura
import Testing

/// A model difference's change and a migration failure's reason are
/// structs with kinds: made and compared as the enums were, read through
/// properties, and able to grow without breaking a caller's `switch`.
@Suite struct MigrationValueTests {
    @Test func aChangeIsComparedByValueAndReadThroughItsProperties() {
        let renamed = ModelDifference.Change.attributeRenamed(from: "headline")
        #expect(renamed == .attributeRenamed(from: "headline"))
        #expect(renamed != .attributeRenamed(from: "title"))
        #expect(renamed != .relationshipRenamed(from: "headline"))
        #expect(renamed.kind == .attributeRenamed && renamed.renamedFrom == "headline")
        #expect(renamed.attributeTypes == nil && renamed.texts == nil && renamed.isUniqueIndex == nil)

        let retyped = ModelDifference.Change.attributeTypeChanged(from: .int16, to: .int64)
        #expect(retyped.kind == .attributeTypeChanged && retyped.attributeTypes?.from == .int16 && retyped.attributeTypes?.to == .int64)
        #expect(ModelDifference.Change.indexAdded(unique: true).isUniqueIndex == true)
        #expect(ModelDifference.Change.superentityChanged(from: nil, to: "Media").texts?.to == "Media")
        #expect(ModelDifference.Change.attributeAdded.kind.rawValue == "attributeAdded")

        let difference = ModelDifference(entity: "Article", property: "views", change: retyped, cost: .needsCustomStage)
        #expect("\(difference)" == "Article.views changes from Int16 to Int64 (needs a custom migration stage)")
    }

    @Test func aReasonCarriesWhatItsKindSays() throws {
        let model = try ManagedObjectModel(entities: [try EntityDescription(name: "Article", attributes: [])])
        let ids = [try model.objectID(forURIRepresentation: "kura://Article/2")]
        let missing = MigrationFailure.Reason.missingValues(entity: "Article", attribute: "summary", objectIDs: ids, count: 15)
        #expect(missing.kind == .missingValues && missing.entity == "Article" && missing.property == "summary")
        #expect(missing.objectIDs == ids && missing.count == 15 && missing.values.isEmpty && missing.stageFailure == nil)
        #expect("\(MigrationFailure(missing))" == "Article.summary becomes required without a default, but 15 object(s) have none: "
            + "kura://Article/2 and 14 more")

        let unique = MigrationFailure.Reason.uniqueConstraintViolated(entity: "Tag", index: "byName", values: ["x"], objectIDs: ids + ids)
        #expect(unique.kind == .uniqueConstraintViolated && unique.values == ["x"] && unique.count == 2 && unique.property == "byName")

        let stage = MigrationFailure.Reason.stageFailed(stage: 1, error: "Refused")
        #expect(stage.stageFailure?.stage == 1 && stage.stageFailure?.error == "Refused" && stage.entity == nil)
        #expect(MigrationFailure.Reason.storeVersionNotInPlan(version: "3").storeVersion == "3")
        #expect(MigrationFailure.Reason.subentityHasObjects(entity: "Audio", superentity: "Media", count: 1).superentity == "Media")

        let difference = ModelDifference(entity: "News", property: "sortOrder", change: .attributeRemoved, cost: .touchesData)
        let custom = MigrationFailure.Reason.needsCustomStage(difference)
        #expect(custom.difference == difference && custom.entity == "News" && custom.property == "sortOrder")
        #expect(custom == .needsCustomStage(difference) && custom != stage)
    }

    @Test func anEngineErrorIsACodeWithItsSpaceAndKey() {
        func caught(_ error: any Error) -> String {
            do {
                throw error
            } catch StorageEngineError.keyExists {
                return "exists here"
            } catch let error as StorageEngineError where error.code == .keyExistsInSpace {
                return "exists in \(error.space!.number): \(error.key!)"
            } catch StorageEngineError.Code.keyTooLong {
                return "too long"
            } catch {
                return "other"
            }
        }
        #expect(caught(StorageEngineError.keyExists) == "exists here")
        #expect(caught(StorageEngineError.keyExistsInSpace(StorageSpace(number: 7), key: [1, 2])) == "exists in 7: [1, 2]")
        #expect(caught(StorageEngineError.keyTooLong) == "too long")
        #expect(caught(StorageEngineError.noCurrentEntry) == "other")
        #expect(StorageEngineError.keyExistsInSpace(StorageSpace(number: 7), key: [1]) != .keyExistsInSpace(StorageSpace(number: 7), key: [2]))
    }
}

import Foundation
import Kura
import KuraTestSupport
import Testing

/// Thirteen typed attributes: more than the key path table's first size
/// holds without meeting, so some key paths share an entry.
final class Wide: ManagedObject {
    @Attribute var a0: Int = 0
    @Attribute var a1: Int = 0
    @Attribute var a2: Int = 0
    @Attribute var a3: Int = 0
    @Attribute var a4: Int = 0
    @Attribute var a5: Int = 0
    @Attribute var a6: Int = 0
    @Attribute var a7: Int = 0
    @Attribute var a8: Int = 0
    @Attribute var a9: Int = 0
    @Attribute var a10: Int = 0
    @Attribute var a11: String = ""
    @Attribute var a12: Double = 0

    func set(_ base: Int) {
        a0 = base; a1 = base + 1; a2 = base + 2; a3 = base + 3; a4 = base + 4; a5 = base + 5; a6 = base + 6
        a7 = base + 7; a8 = base + 8; a9 = base + 9; a10 = base + 10; a11 = "\(base + 11)"; a12 = Double(base + 12)
    }

    var all: [Int] { [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, Int(a11) ?? -1, Int(a12)] }
}

@Suite struct AttributeKeyPathsTests {
    @Test func everyTypedPropertyOfAWideEntityReadsAndWritesItsOwnAttributeFromManyTasksAtOnce() async throws {
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(Wide.self))
        // The first reads and writes of each property, which resolve its key
        // path, race across tasks.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    let context = container.newContext()
                    for index in 0..<50 {
                        let object = Wide(context: context)
                        object.set(task * 1000 + index * 20)
                        #expect(object.all == Array((task * 1000 + index * 20)...(task * 1000 + index * 20 + 12)))
                        #expect(try object.value(forKey: "a7") == .int(Int64(task * 1000 + index * 20 + 7)))
                    }
                    try context.save()
                }
            }
            try await group.waitForAll()
        }
        let fetched = try container.newContext().fetch(FetchRequest(entityName: "Wide").sorted(by: "a0"), as: Wide.self)
        #expect(fetched.count == 400)
        for object in fetched { #expect(object.all == Array(object.a0...(object.a0 + 12))) }
    }
}

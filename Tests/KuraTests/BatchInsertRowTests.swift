import Foundation
import Kura
@testable import KuraCore
import Testing

/// The typed batch insert's rows: values set by key path, checked, and
/// nothing inserted when a row sets something wrong.
@Suite struct BatchInsertRowTests {
    @Test func aFilledBatchInsertThrowsWhatARowSetsWrongAndInsertsNothing() throws {
        let store = try EngineStore(.underTest)
        let container = try BatchRequestTests.blog(store)
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        struct Stop: Error {}
        func insert(_ fill: @escaping @Sendable (Int, inout BatchInsertRow<Tag>) throws -> Void) throws {
            try context.execute(BatchInsertRequest(Tag.self, count: 10, fill: fill))
        }
        #expect { try insert { index, row in row.set(\.name, to: "n\(index)"); if index == 7 { row.set("nom", to: .string("x")) } } } throws: { error in
            (error as? KuraError)?.code == .unknownAttribute && "\(error)".contains("nom")
        }
        #expect { try insert { index, row in row.set("name", to: .int(Int64(index))) } } throws: { error in
            (error as? KuraError)?.code == .typeMismatch && "\(error)".contains("name")
        }
        #expect { try insert { index, row in row.set(\.name, to: "tag\(index)") } } throws: { error in
            (error as? KuraError)?.code == .uniqueConstraintViolated
        }
        #expect(throws: Stop.self) { try insert { index, row in row.set(\.name, to: "n\(index)"); if index == 9 { throw Stop() } } }
        #expect(try context.count(for: FetchRequest<Tag>()) == 5, "nothing inserted")
        try insert { index, row in row.set(\.name, to: "n\(index)") }
        #expect(try context.fetch(FetchRequest<Tag>()).map(\.name).sorted()
                == (0..<10).map { "n\($0)" }.sorted() + (0..<5).map { "tag\($0)" })
        #expect(try container.store.check().isConsistent)
    }

    @Test func rowsSettingKeyPathsInAnyOrderGetTheirOwnAttributes() throws {
        let store = try EngineStore(.underTest)
        let container = try BatchRequestTests.blog(store)
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        // Rows that set the same key paths in other orders, fewer of them, or
        // one twice: each value lands in its attribute, the last set wins.
        let result = try context.execute(BatchInsertRequest(Post.self, count: 6) { index, row in
            switch index % 3 {
            case 0: row.set(\.title, to: "t\(index)"); row.set(\.score, to: index)
            case 1: row.set(\.score, to: index); row.set(\.title, to: "t\(index)")
            default: row.set(\.title, to: "x"); row.set(\.title, to: "t\(index)")
            }
        })
        let posts = try result.objectIDs.map { try context.existingObject(with: $0, as: Post.self) }
        #expect(posts.map(\.title) == (0..<6).map { "t\($0)" })
        #expect(posts.map(\.score) == [0, 1, 0, 3, 4, 0])
    }
}

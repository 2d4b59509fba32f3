import Kura
@_spi(Fuzzing) import KuraCore

/// The stored model decoder: the JSON document a store keeps, which `kura`
/// reads to open a store without the app's code.
///
/// Properties: a document either decodes or throws; a decoded model encodes
/// to a document that decodes to a model with the same fingerprint and the
/// same bytes.
public struct ModelFuzzTarget: FuzzTarget {
    public init() {}

    public var name: String { "model" }

    public var seeds: [[UInt8]] {
        Self.models.map { try! FuzzingEntryPoints.encodeModel($0) }
    }

    private static let models: [ManagedObjectModel] = {
        let plain = FuzzModels.model
        let withTemplates = try! ManagedObjectModel(entities: [
            FuzzModels.makeThing(),
            EntityDescription(name: "Note", attributes: [
                AttributeDescription(name: "text", type: .string, defaultValue: .string("none")),
                AttributeDescription(name: "rank", type: .double, defaultValue: .double(.nan)),
                AttributeDescription(name: "when", type: .date, isOptional: true),
            ], indexes: [.index("rank")]),
        ])
        var byName = FetchRequest(entityName: "Thing", predicate: "name == $name AND count > 3",
                                  sortDescriptors: [FetchSortDescriptor(key: "count", ascending: false)])
        byName.fetchLimit = 10
        try! withTemplates.setFetchRequestTemplate(byName, forName: "byName")
        try! withTemplates.setFetchRequestTemplate(FetchRequest(entityName: "Note"), forName: "allNotes")
        try! withTemplates.setFetchRequestTemplate(FetchRequest(entityName: "Thing", predicate: "id == $id"), forName: "getThing")
        return [plain, withTemplates]
    }()

    public var dictionary: [[UInt8]] {
        ([
            "{", "}", "[", "]", ":", ",", "\"", "\\", "\\u0000", "\\ud800", "null", "true", "false", "0", "-1", "1e400",
            "18446744073709551616", "\"entities\"", "\"templates\"", "\"attributes\"", "\"indexes\"", "\"name\"", "\"type\"",
            "\"optional\"", "\"defaultValue\"", "\"text\"", "\"unique\"", "\"predicate\"", "\"entity\"", "\"fetchLimit\"",
            "\"sortDescriptors\"", "\"key\"", "\"ascending\"", "\"comparison\"", "\"resultType\"", "\"\"", "\"Thing\"", "\"x\"",
        ] + AttributeType.allCases.map { "\"\($0.rawValue)\"" }).map { Array($0.utf8) }
    }

    public func generate(using generator: inout SplitMix64) -> [UInt8]? {
        var documents = ModelGenerator(generator: generator)
        defer { generator = documents.generator }
        return documents.document()
    }

    public func run(_ input: [UInt8]) throws(FuzzFailure) -> Bool {
        guard let model = try? FuzzingEntryPoints.decodeModel(input) else { return false }
        do {
            let encoded = try FuzzingEntryPoints.encodeModel(model)
            let again = try FuzzingEntryPoints.decodeModel(encoded)
            guard again.fingerprint == model.fingerprint else { throw FuzzFailure("the model's fingerprint changed after encoding") }
            guard try FuzzingEntryPoints.encodeModel(again) == encoded else { throw FuzzFailure("the model encodes differently the second time") }
        } catch let failure as FuzzFailure {
            throw failure
        } catch {
            throw FuzzFailure("a decoded model does not survive encoding: \(error)")
        }
        return true
    }
}

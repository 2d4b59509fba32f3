import Foundation
import Kura

/// `kura create NEW --model-from OTHER`: an empty store with another
/// store's model (its entities, indexes, templates and version), so that an
/// export of one store can be imported into a new one without the app's code.
public enum StoreCreation {
    /// Creates an empty store at `path` with the model of the store at
    /// `other`, which is opened read-only. Returns what was made, in one line.
    ///
    /// - Throws: ``InspectError`` when `path` exists (nothing is replaced),
    ///   `other` can't be opened, or the new store can't be written (then
    ///   no file is left at `path`).
    public static func create(at path: String, modelFrom other: String) throws(InspectError) -> String {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw InspectError("\(path) exists; create makes a new store and replaces nothing")
        }
        guard FileManager.default.fileExists(atPath: other) else { throw InspectError("no such file: \(other)") }
        do {
            var options = StoreOptions()
            options.isReadOnly = true
            options.allowsReadingWithoutLock = true
            let source = try PersistentContainer(path: other, options: options)
            let model = source.model
            source.close()
            do {
                let created = try PersistentContainer(path: path, model: model)
                created.close()
            } catch {
                // Nothing half-made stays behind (a full disk, say): the
                // file and its lock file were not there before.
                try? FileManager.default.removeItem(atPath: path)
                try? FileManager.default.removeItem(atPath: path + "-lock")
                throw error
            }
            let names = model.entities.map(\.name).joined(separator: ", ")
            let templates = model.fetchRequestTemplatesByName.count
            return "created \(path) with the model of \(other): \(model.entities.count) "
                + "\(model.entities.count == 1 ? "entity" : "entities") (\(names)), \(templates) \(templates == 1 ? "template" : "templates"), no objects"
        } catch {
            throw InspectError(error)
        }
    }
}

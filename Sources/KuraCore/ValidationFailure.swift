import Foundation

/// One failed validation: the object, the attribute (if any), and why.
public struct ValidationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The object that failed.
    public var objectID: ObjectID
    /// The attribute that failed, or `nil` when the failure is about the whole object.
    public var key: String?
    /// What is wrong, for a person.
    public var message: String

    /// A failure of `objectID`, about the attribute `key` when there is one.
    public init(objectID: ObjectID, key: String?, message: String) {
        self.objectID = objectID
        self.key = key
        self.message = message
    }

    public var description: String {
        if let key { return "\(objectID) \(key): \(message)" }
        return "\(objectID): \(message)"
    }
}

extension ValidationFailure: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}

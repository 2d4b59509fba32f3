import Foundation

/// A managed object's values at one moment, as a value that crosses
/// isolation domains: `Sendable`, `Encodable`, `Identifiable`, read by
/// the object's own key paths. What a request handler returns instead of
/// objects (which stay in their context), without a DTO to write by hand:
///
/// ```swift
/// let page = try await container.performBackgroundTask { context in
///     try context.fetch(FetchRequest<News>(sortBy: [SortDescriptor(\.dateCreated, order: .reverse)])).map { try $0.snapshot() }
/// }                                              // [ObjectSnapshot<News>]
/// page[0].title                                  // a String, through \News.title
/// let json = try JSONEncoder().encode(page)      // [{"objectID":"kura://News/3","title":…,"author":"kura://Author/1",…}]
/// ```
///
/// A snapshot holds every attribute's value and each to-one's object ID
/// (to-manys are left out: read their IDs with
/// ``ManagedObject/objectIDs(forRelationshipNamed:)`` where you need
/// them). Encoded, it is a keyed container: `objectID` as its URI, each
/// attribute by name as its Swift type encodes (dates, UUIDs, URLs and data
/// by the encoder's strategies; a `Codable` attribute as its own JSON), a
/// to-one as its destination's URI or `null`. Decoding is not offered: a
/// snapshot describes stored objects; change them through a context.
@dynamicMemberLookup
public struct ObjectSnapshot<Object: ManagedObject>: Sendable, Identifiable, Encodable {
    /// The object's ID (temporary for an object not yet saved).
    public let objectID: ObjectID
    /// The object's values, by attribute number.
    let values: [AttributeValue?]
    /// Each to-one's destination, by to-one position.
    let destinations: [ObjectID?]

    public var id: ObjectID { objectID }

    /// The entity the snapshot is of (a sub-entity's, for an object of one).
    public var entity: EntityDescription { objectID.entity }

    /// Made by ``ManagedObject/snapshot()``.
    init(objectID: ObjectID, values: [AttributeValue?], destinations: [ObjectID?]) {
        self.objectID = objectID
        self.values = values
        self.destinations = destinations
    }

    /// The value of the property `keyPath` names, as the object had it.
    ///
    /// - Precondition: `keyPath` is an `@Attribute` property (a computed
    ///   property or a relationship stops the program with a message: a
    ///   programming error, as `#Predicate` refuses them).
    public subscript<Value: AttributeValueConvertible>(dynamicMember keyPath: KeyPath<Object, Value>) -> Value {
        guard let names = PropertyKeyPathNames.propertyNames(of: keyPath, root: Object.self), names.count == 1,
              let number = entity.attributeNumber(named: names[0]) else {
            preconditionFailure("\(keyPath) is not an @Attribute property of \(Object.self): a snapshot holds attributes")
        }
        if let value = Value(attributeValue: values[number]) { return value }
        if let initial = Value(attributeValue: entity.attributes[number].defaultValue) { return initial }
        preconditionFailure("\(entity.name).\(names[0]) of \(objectID) had no value when the snapshot was taken")
    }

    /// The value of the attribute called `key` (`nil` for none).
    ///
    /// - Throws: ``KuraError/unknownAttribute(entity:key:)``.
    public func value(forKey key: String) throws -> AttributeValue? {
        values[try entity.requireAttributeNumber(key)]
    }

    /// The destination of the to-one called `key`, or `nil`.
    ///
    /// - Throws: ``KuraError/unknownAttribute(entity:key:)`` for a key that isn't a to-one.
    public func objectID(forRelationshipNamed key: String) throws -> ObjectID? {
        guard let position = entity.toOneLinks.firstIndex(where: { $0.name == key }) else {
            throw KuraError.unknownAttribute(entity: entity.name, key: key)
        }
        return destinations[position]
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: SnapshotKey.self)
        try container.encode(objectID.uriRepresentation, forKey: SnapshotKey("objectID"))
        for (number, attribute) in entity.attributes.enumerated() {
            let key = SnapshotKey(attribute.name)
            guard let value = values[number] else {
                try container.encodeNil(forKey: key)
                continue
            }
            if attribute.encoding == .json, case .data(let data) = value, let json = try? JSONDecoder().decode(SnapshotJSON.self, from: data) {
                try container.encode(json, forKey: key)
                continue
            }
            switch value {
            case .bool(let flag): try container.encode(flag, forKey: key)
            case .int(let number): try container.encode(number, forKey: key)
            case .double(let number): try container.encode(number, forKey: key)
            case .float(let number): try container.encode(number, forKey: key)
            case .decimal(let number): try container.encode(number, forKey: key)
            case .string(let text): try container.encode(text, forKey: key)
            case .date(let date): try container.encode(date, forKey: key)
            case .uuid(let uuid): try container.encode(uuid, forKey: key)
            case .data(let data): try container.encode(data, forKey: key)
            case .url(let url): try container.encode(url, forKey: key)
            }
        }
        for (position, link) in entity.toOneLinks.enumerated() {
            try container.encode(destinations[position]?.uriRepresentation, forKey: SnapshotKey(link.name))
        }
    }
}

/// A snapshot's keys: its property names.
struct SnapshotKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) {
        stringValue = name
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        nil
    }
}

/// A stored JSON value, encoded again as part of a snapshot.
indirect enum SnapshotJSON: Codable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case integer(Int64)
    case string(String)
    case array([SnapshotJSON])
    case object([String: SnapshotJSON])

    init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: SnapshotKey.self) {
            var members: [String: SnapshotJSON] = [:]
            for key in container.allKeys { members[key.stringValue] = try container.decode(SnapshotJSON.self, forKey: key) }
            self = .object(members)
        } else if var container = try? decoder.unkeyedContainer() {
            var elements: [SnapshotJSON] = []
            while !container.isAtEnd { elements.append(try container.decode(SnapshotJSON.self)) }
            self = .array(elements)
        } else {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let flag = try? container.decode(Bool.self) {
                self = .bool(flag)
            } else if let integer = try? container.decode(Int64.self) {
                self = .integer(integer)
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else {
                self = .string(try container.decode(String.self))
            }
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let members):
            var container = encoder.container(keyedBy: SnapshotKey.self)
            for (key, value) in members { try container.encode(value, forKey: SnapshotKey(key)) }
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag): try Self.encodeScalar(flag, to: encoder)
        case .number(let number): try Self.encodeScalar(number, to: encoder)
        case .integer(let number): try Self.encodeScalar(number, to: encoder)
        case .string(let text): try Self.encodeScalar(text, to: encoder)
        }
    }

    private static func encodeScalar(_ value: some Encodable, to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// What gives ``ManagedObject`` its typed ``snapshot()`` (a method of a
/// class can't return a generic type of `Self`; a protocol's can).
public protocol ObjectSnapshotting: ManagedObject {}

extension ManagedObject: ObjectSnapshotting {}

extension ObjectSnapshotting {
    /// The object's current values, unsaved changes included, as an
    /// ``ObjectSnapshot``: a `Sendable`, `Encodable` value to hand to
    /// another task or a response encoder.
    ///
    /// - Throws: ``KuraError/objectNotFound(_:)`` for a fault whose record is
    ///   gone; ``KuraError/objectDetached(_:)``.
    /// - Complexity: O(attributes); decodes each value once (a fault is read).
    public func snapshot() throws -> ObjectSnapshot<Self> {
        let values = try entity.attributes.indices.map { try currentValue($0) }
        let destinations = try entity.toOneLinks.map { link in try objectIDs(forRelationshipNamed: link.name).first }
        return ObjectSnapshot(objectID: objectID, values: values, destinations: destinations)
    }
}

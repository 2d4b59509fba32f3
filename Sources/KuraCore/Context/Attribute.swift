/// Declares a stored attribute of a ``ManagedObject`` subclass: the property's
/// name is the attribute's name, its type the attribute's type, an optional
/// type makes it optional, and its initial value is the default.
///
/// ```swift
/// final class News: ManagedObject {
///     @Attribute(.unique) var objectId: String = ""
///     @Attribute var title: String = ""
///     @Attribute var imageURL: String?
///     @Attribute var dateCreated: Date?
///     @Attribute(.indexed) var sortOrder: Int = 0
/// }
/// ```
///
/// Reading the property reads the object's current value (decoding it from
/// the stored record the first time); setting it records a change that the
/// next ``ManagedObjectContext/save()`` writes. Setting the value it already
/// has changes nothing.
///
/// The initial value is evaluated each time an object is created, fetched
/// ones included, so keep it a constant; set computed starting values (a new
/// UUID, the current date) in ``ManagedObject/awakeFromInsert()``. The model
/// takes it once, when it reflects the class, and objects don't keep it (an
/// `Attribute` is one byte in its object): give it in the declaration, as a
/// class whose initializer initializes an attribute's storage again is
/// refused (``KuraError/invalidModel(_:)``). A non-optional property must
/// have an initial value (`@Attribute var title: String` doesn't compile:
/// there is no `init()` for it), so a typed property always has a value to
/// read; an attribute that must be set by the app is checked in
/// ``ManagedObject/validateForInsert()``. (A model made of
/// ``EntityDescription``s may have required attributes without a default:
/// a save fails validation for an object that has no value in one.)
@propertyWrapper
public struct Attribute<Value: AttributeValueConvertible>: AttributeDeclaration {
    /// Whether the attribute gets an index, and whether it is unique.
    ///
    /// (The only thing an `Attribute` keeps: the initial value goes to the
    /// model when the class is reflected, not into every object.)
    public let options: AttributeOptions

    /// An attribute whose new objects start with `wrappedValue`.
    @inlinable
    public init(wrappedValue: Value, _ options: AttributeOptions = []) {
        self.options = options
        AttributeDefaults.record(wrappedValue.attributeValue)
    }

    @available(*, unavailable, message: "@Attribute declares properties of ManagedObject subclasses only")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }  // swiftlint:disable:this unused_setter_value
    }

    /// Reads and writes the value through the enclosing object.
    // Inlinable, so each property's accessor is specialized for its type in
    // the module that declares it; the work is in non-generic entry points.
    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get {
            // A fetched object that holds no values of its own: straight from its record's bytes.
            if let typed = object.storedValue(forStorage: storageKeyPath, as: Value.self) {
                return typed
            }
            let (number, value) = object.attributeValue(forStorage: storageKeyPath)
            guard let typed = Value(attributeValue: value) else { return valueInstead(of: value, at: number, in: object) }
            return typed
        }
        set {
            object.setAttributeValue(newValue.attributeValue, forStorage: storageKeyPath)
        }
    }

    /// What a typed property reads when the stored value is no `Value`: a
    /// value the type can't read (an enumeration's case added by a newer
    /// build, JSON it doesn't decode) reads as the attribute's initial
    /// value; no value at all stops the program (read before it was set).
    /// Out of line, so that the getter stays small enough to inline.
    @inline(never)
    @usableFromInline
    static func valueInstead(of value: AttributeValue?, at number: Int, in object: ManagedObject) -> Value {
        if value != nil, let initial = Value(attributeValue: object.initialValueInstead(at: number)) { return initial }
        object.missingValue(at: number)
    }

    var attributeType: AttributeType { Value.attributeType }
    var isOptional: Bool { Value.isOptionalAttribute }
    var encoding: AttributeEncoding { Value.attributeEncoding }
    var elementType: AttributeType? { Value.attributeElementType }
    var holdsEveryStoredValue: Bool {
        !(AnyOptional.unwrappedType(Value.self) is any RawRepresentable.Type) && Value.attributeEncoding == .plain
    }
}

/// Options of an ``Attribute``.
public struct AttributeOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Keep an index on this attribute alone.
    public static let indexed = AttributeOptions(rawValue: 1)
    /// Keep a unique index on this attribute alone.
    public static let unique = AttributeOptions(rawValue: 3)
}

/// What the model builder reads from an ``Attribute`` through reflection
/// (its initial value comes from ``AttributeDefaults``).
protocol AttributeDeclaration {
    var attributeType: AttributeType { get }
    var isOptional: Bool { get }
    var options: AttributeOptions { get }
    /// How a data attribute's bytes read (JSON for a `Codable` type).
    var encoding: AttributeEncoding { get }
    /// The elements' type of a list of scalars (`[String]`).
    var elementType: AttributeType? { get }
    /// False for an enumeration or a `Codable` type: some stored values
    /// (raw values of cases it doesn't have, JSON it doesn't decode) are no
    /// value of it.
    var holdsEveryStoredValue: Bool { get }
}

extension Attribute where Value: ExpressibleByNilLiteral {
    /// An optional attribute with no initial value: it starts as `nil`.
    ///
    /// Only optional properties may leave out their initial value
    /// (`@Attribute var imageURL: String?`): a non-optional one without it
    /// (`@Attribute var title: String`) doesn't compile, as it would have
    /// no value to read until set.
    @inlinable
    public init(_ options: AttributeOptions = []) {
        self.options = options
        AttributeDefaults.record(nil)
    }
}

/// Declares a composite attribute of a ``ManagedObject`` subclass (SwiftData's
/// and Core Data's composite attributes): a `Codable` struct whose fields are
/// stored flattened, each as an attribute of its own named after the
/// property and the field, so that predicates, sort descriptors and indexes
/// reach each field.
///
/// ```swift
/// struct Address: Codable {
///     var street: String
///     var city: String
///     var postcode: String?
/// }
///
/// final class Shop: ManagedObject {
///     @Attribute var name: String = ""
///     @Composite var address = Address(street: "", city: "")
///     override class var indexes: [IndexDescription] { [.index("address.city")] }
/// }
///
/// let kyoto = FetchRequest<Shop>(predicate: #Predicate { $0.address.city == "Kyoto" })
/// let same = FetchRequest<Shop>(predicate: try FetchPredicate(format: "address.city == %@", "Kyoto"))
/// ```
///
/// `Shop` has the attributes `address.street`, `address.city` and
/// `address.postcode` (a nested struct's fields go one level deeper:
/// `address.location.latitude`). Each field's type is an attribute value
/// (``AttributeValueConvertible``: a scalar, an enumeration, a list, a
/// `Codable` value stored whole as JSON) or a struct taken apart in turn;
/// an optional field is an optional attribute. The initial value, which a
/// composite must have, gives the fields, their types and their defaults
/// when the class is reflected: an optional struct nested in it must not be
/// `nil` there. Its type must encode the same keys whatever its value (an
/// enumeration with payloads doesn't: store it whole with ``Attribute``).
///
/// Reading the property puts the value together from its fields; setting it
/// sets each field, so only the fields that changed are saved, merged and
/// observed as changed. A field added to the struct is an attribute added
/// to the entity: an inferred migration fills it with its default (or
/// `nil`); a field removed is an attribute removed.
///
/// Two ways to store a `Codable` struct, then: whole, as one JSON attribute
/// (``Attribute``, the default: any shape, compared only whole), or
/// flattened (`Composite`: each field searchable and indexable). A
/// composite itself can't be optional; give its struct optional fields.
@propertyWrapper
public struct Composite<Value: Codable>: CompositeDeclaration {
    /// A composite whose new objects start with `wrappedValue`, which also
    /// gives its fields.
    public init(wrappedValue: Value) {
        AttributeDefaults.recordComposite(wrappedValue)
    }

    @available(*, unavailable, message: "@Composite declares properties of ManagedObject subclasses only")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }  // swiftlint:disable:this unused_setter_value
    }

    /// Reads and writes the value through the enclosing object's attributes.
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get { object.compositeValue(forStorage: storageKeyPath, as: Value.self) }
        set { object.setCompositeValue(newValue, forStorage: storageKeyPath) }
    }
}

/// What the model builder looks for through reflection (a composite's
/// fields come from ``AttributeDefaults``).
protocol CompositeDeclaration {}

extension ManagedObject {
    /// The composite whose ``Composite`` storage is `keyPath`.
    private func compositeLayout(forStorage keyPath: AnyKeyPath) -> CompositeLayout {
        entity.composites[entity.compositeKeyPaths.number(for: keyPath, in: entity)]
    }

    /// A composite property's value, from its fields' attributes. Stops the
    /// program with a message, as a typed property does, when there is no
    /// value to read.
    final func compositeValue<Value: Codable>(forStorage keyPath: AnyKeyPath, as type: Value.Type) -> Value {
        let layout = compositeLayout(forStorage: keyPath)
        do {
            var values: [AttributeValue?] = []
            values.reserveCapacity(layout.attributeNumbers.count)
            for number in layout.attributeNumbers { values.append(try currentValue(number)) }
            let value = try CompositeDecoder.decode(Value.self, from: values, table: layout.table)
            if let propertyProbe {
                propertyProbe.names.append(layout.name)
                propertyProbe.given = .composite(try CompositeFields.fields(of: value, discovering: false), Value.self)
            }
            return value
        } catch {
            fatalError("reading \(entity.name).\(layout.name) of \(objectID): \(error)")
        }
    }

    /// Sets a composite property: each field's attribute. Stops the program
    /// with a message when the value has a field the composite doesn't (a
    /// type whose keys change with its value).
    final func setCompositeValue<Value: Encodable>(_ value: Value, forStorage keyPath: AnyKeyPath) {
        let layout = compositeLayout(forStorage: keyPath)
        var written = [AttributeValue?](repeating: nil, count: layout.attributeNumbers.count)
        do {
            for field in try CompositeFields.fields(of: value, discovering: false) {
                guard let position = layout.table.positions[field.path] else {
                    fatalError(
                        "\(entity.name).\(layout.name) has no field \(field.path): a composite's type must encode the same "
                            + "fields whatever its value (store \(Value.self) whole, with @Attribute)")
                }
                written[position] = field.value
            }
        } catch {
            fatalError("setting \(entity.name).\(layout.name) of \(objectID): \(error)")
        }
        for (position, number) in layout.attributeNumbers.enumerated() { setTypedValue(written[position], at: number) }
    }
}

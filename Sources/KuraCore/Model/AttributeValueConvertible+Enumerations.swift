/// Enumerations as attributes: a `RawRepresentable` type whose raw value is
/// a stored type gets every requirement of ``AttributeValueConvertible``
/// from its raw value. Declare the conformance and use the type in an
/// ``Attribute``:
///
/// ```swift
/// enum Status: String, AttributeValueConvertible {
///     case draft, published, archived
/// }
///
/// final class News: ManagedObject {
///     @Attribute(.indexed) var status: Status = .draft
/// }
///
/// try context.fetch(FetchRequest<News>(predicate: \.status == .published))
/// ```
///
/// The store keeps the raw value (`"published"`), so an index, a sort and a
/// predicate (a key-path operator, `#Predicate`, or NSPredicate's text:
/// `status == "published"`) all work on raw values, and `kura` shows them.
///
/// A raw value that names no case (written by a newer build that added
/// one) never stops the program. The typed property reads the attribute's
/// initial value (`nil` for an optional), which is why an enumeration
/// attribute must be optional or have one (the model refuses it
/// otherwise); ``ManagedObject/value(forKey:as:)`` throws
/// ``KuraError/typeMismatch(entity:key:expected:found:)`` naming the raw
/// value; the record keeps it until the property is set.
extension AttributeValueConvertible where Self: RawRepresentable, RawValue: AttributeValueConvertible {
    @inlinable public static var attributeType: AttributeType { RawValue.attributeType }

    @inlinable public init?(attributeValue: AttributeValue?) {
        guard let rawValue = RawValue(attributeValue: attributeValue) else { return nil }
        self.init(rawValue: rawValue)
    }

    @inlinable public var attributeValue: AttributeValue? { rawValue.attributeValue }
}

import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The initial values of the ``Attribute`` properties of an object made
/// while its class is reflected (``EntityDescription/init(_:)``), in the
/// order they are initialized.
///
/// An attribute's initial value is what its new objects start with, and
/// the model needs it once, when the class is reflected. Kept in each
/// ``Attribute`` it would sit in every object (a `String` default is 17
/// bytes, so the seven attributes of a news item took 144 of its 312
/// bytes). So `Attribute` keeps only its options, and its initializers hand
/// the value here, where it is kept only while the thread that made the
/// object is reflecting its class. Making any other object costs one
/// relaxed atomic load per attribute.
@usableFromInline
enum AttributeDefaults {
    /// How many threads are reflecting a class now.
    @usableFromInline static let reflecting = Atomic<Int>(0)
    /// The values recorded so far, by reflecting thread.
    private static let recorded = Mutex<[UInt: [RecordedDefault]]>([:])

    /// What one property recorded.
    enum RecordedDefault {
        /// An ``Attribute``'s initial value.
        case value(AttributeValue?)
        /// A ``Composite``'s fields, from its initial value, or why it
        /// can't be one.
        case composite(Result<[CompositeField], KuraError>)
    }

    /// Records `value`, the initial value of an attribute being initialized,
    /// if this thread is reflecting a class. Inlined into the attribute's
    /// initializer, so that making an object costs one relaxed load per
    /// attribute (not a call into this module for each).
    @inlinable @inline(__always)
    static func record(_ value: @autoclosure () -> AttributeValue?) {
        if reflecting.load(ordering: .relaxed) > 0 { recordIfReflecting(value()) }
    }

    @usableFromInline
    static func recordIfReflecting(_ value: AttributeValue?) {
        append(.value(value))
    }

    /// Records the fields of `value`, the initial value of a composite
    /// being initialized, if this thread is reflecting a class.
    static func recordComposite<Value: Encodable>(_ value: @autoclosure () -> Value) {
        guard reflecting.load(ordering: .relaxed) > 0 else { return }
        let fields = Result { () throws(KuraError) in try CompositeFields.fields(of: value()) }
        if case .success(let found) = fields { CompositeFields.register(found, of: Value.self) }
        append(.composite(fields))
    }

    private static func append(_ recordedDefault: RecordedDefault) {
        let thread = currentThread
        recorded.withLock { recorded in
            guard recorded[thread] != nil else { return }
            recorded[thread]!.append(recordedDefault)
        }
    }

    /// Runs `body` (which makes the prototype object of a class) and returns
    /// what it returns with the initial values its attributes recorded, in
    /// the order they were initialized: the class's own first, then its
    /// superclass's, each class's in declaration order.
    static func recording<Made>(_ body: () throws -> Made) rethrows -> (Made, [RecordedDefault]) {
        let thread = currentThread
        let outer = recorded.withLock { recorded in recorded.updateValue([], forKey: thread) }
        reflecting.add(1, ordering: .relaxed)
        defer {
            reflecting.subtract(1, ordering: .relaxed)
            recorded.withLock { recorded in recorded[thread] = outer }
        }
        let result = try body()
        return (result, recorded.withLock { $0[thread] ?? [] })
    }

    private static var currentThread: UInt { UInt(bitPattern: Int(bitPattern: UInt(pthread_self()))) }
}

/// A reference that neither keeps its object alive nor counts references:
/// for the few references whose holder's owner keeps the object alive (a
/// model holds its entities and their relationships; a context holds every
/// object that refers to it, and clears the reference when it lets go).
///
/// In the release build it is `Unmanaged`: no reference counting at all,
/// where a weak reference costs two atomic operations per object made and
/// one per read. In the internal-checks build (`--traits InternalChecks`)
/// it is a checked `unowned` reference instead, which stops the program if
/// the object went first: the claim above is then tested by every suite
/// that build runs. Kura's other unchecked state is fenced the same way
/// (``ManagedObject/_State``), so what is unchecked is said in one place.
struct _UnownedReference<Object: AnyObject> {
    #if InternalChecks
    private unowned let checked: Object

    @inline(__always) init(_ object: Object) { checked = object }

    @inline(__always) var object: Object { checked }

    @inline(__always) func withObject<Result>(_ body: (Object) throws -> Result) rethrows -> Result { try body(checked) }
    #else
    private let unmanaged: Unmanaged<Object>

    @inline(__always) init(_ object: Object) { unmanaged = .passUnretained(object) }

    @inline(__always) var object: Object { unmanaged.takeUnretainedValue() }

    /// Calls `body` with the object without retaining it for the call.
    @inline(__always) func withObject<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        try unmanaged._withUnsafeGuaranteedRef(body)
    }
    #endif
}

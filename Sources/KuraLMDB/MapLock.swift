#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps transactions and map changes apart inside one process.
///
/// LMDB may only change the map (grow it, adopt another process's size, close
/// the environment) while no transaction of this process is active. Every
/// transaction holds this lock shared for its lifetime; a map change holds it
/// exclusively. glibc's default read-preferring rwlock lets a thread take the
/// shared side more than once (a read inside a write), so nesting is safe.
///
/// It also counts, per thread, how many transactions that thread has open, so
/// a thread that would wait for itself gets an error instead of a deadlock.
final class MapLock: @unchecked Sendable {
    // @unchecked: the pthread objects are created once, never moved (they live
    // behind pointers), and pthread_rwlock_t/pthread_key_t are thread-safe by
    // contract.
    private let rwlock: UnsafeMutablePointer<pthread_rwlock_t>
    private var depthKey = pthread_key_t()
    private var readKey = pthread_key_t()

    init() {
        rwlock = .allocate(capacity: 1)
        rwlock.initialize(to: pthread_rwlock_t())
        precondition(pthread_rwlock_init(rwlock, nil) == 0, "pthread_rwlock_init failed")
        precondition(pthread_key_create(&depthKey, nil) == 0, "pthread_key_create failed: too many environments open")
        precondition(pthread_key_create(&readKey, nil) == 0, "pthread_key_create failed: too many environments open")
    }

    deinit {
        pthread_rwlock_destroy(rwlock)
        rwlock.deallocate()
        pthread_key_delete(depthKey)
        pthread_key_delete(readKey)
    }

    /// How many transactions the calling thread holds.
    var depth: Int {
        Int(bitPattern: pthread_getspecific(depthKey))
    }

    private func setDepth(_ value: Int) {
        pthread_setspecific(depthKey, UnsafeRawPointer(bitPattern: value))
    }

    /// The innermost read transaction the calling thread has open on this
    /// environment, or `nil`. A nested read that finds the map resized (and
    /// can't adopt the new size while this thread holds a transaction) reads
    /// this snapshot instead.
    var currentRead: OpaquePointer? {
        get { OpaquePointer(pthread_getspecific(readKey)) }
        set { pthread_setspecific(readKey, newValue.map { UnsafeRawPointer($0) }) }
    }

    /// Enter for the lifetime of a transaction.
    func lockShared() {
        pthread_rwlock_rdlock(rwlock)
        setDepth(depth + 1)
    }

    func unlockShared() {
        setDepth(depth - 1)
        pthread_rwlock_unlock(rwlock)
    }

    /// Enter to change the map. Returns false, without waiting, when the calling
    /// thread itself holds a transaction (it would wait for itself forever).
    func lockExclusive() -> Bool {
        guard depth == 0 else { return false }
        pthread_rwlock_wrlock(rwlock)
        return true
    }

    func unlockExclusive() {
        pthread_rwlock_unlock(rwlock)
    }
}

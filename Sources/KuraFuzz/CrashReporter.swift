#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Says which input a crash or a hang happened on. The number is written by
/// a signal handler (on its own stack, so a stack overflow is reported too)
/// or by a watchdog thread, with nothing but `write(2)`.
enum CrashReporter {
    /// The input running now, and when it started; read by the handler and
    /// the watchdog.
    nonisolated(unsafe) static var currentInput = -1
    nonisolated(unsafe) static var startedAt: UInt64 = 0
    nonisolated(unsafe) static var prefix: [UInt8] = []

    static func install(target: String, seed: UInt64, timeout: Double) {
        prefix = Array("kura-fuzz: \(target) (seed \(seed))".utf8)
        let stackSize = 1 << 20
        var stack = stack_t()
        stack.ss_sp = UnsafeMutableRawPointer.allocate(byteCount: stackSize, alignment: 16)
        stack.ss_size = stackSize
        sigaltstack(&stack, nil)
        for signal in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                CrashReporter.report(" crashed on input ")
                Glibc.signal(signal, SIG_DFL)
                raise(signal)
            }
            action.sa_flags = Int32(SA_ONSTACK)
            sigaction(signal, &action, nil)
        }
        Thread.detachNewThread {
            while true {
                sleep(1)
                let started = startedAt
                if currentInput >= 0 && started > 0 && Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 > timeout {
                    report(" hung on input ")
                    _exit(3)
                }
            }
        }
    }

    /// Writes `prefix`, `what`, the input's number and how to run it
    /// again, without allocating (the heap may be what broke).
    static func report(_ what: StaticString) {
        prefix.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
        _ = write(2, what.utf8Start, what.utf8CodeUnitCount)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { digits in
            var number = max(currentInput, 0)
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(48 + number % 10)
                number /= 10
            } while number > 0
            _ = write(2, digits.baseAddress! + start, digits.count - start)
        }
        let advice: StaticString = "; run it alone with --input N and the same --seed\n"
        _ = write(2, advice.utf8Start, advice.utf8CodeUnitCount)
    }
}

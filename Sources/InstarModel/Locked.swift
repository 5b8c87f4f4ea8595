import Foundation

/// A value behind a lock: every read and write of `value` holds it, which is what makes the
/// `@unchecked Sendable` true (`Synchronization.Mutex` needs macOS 15 / iOS 18, newer than the package's floor).
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    package var current: Value { withLock { $0 } }
}

extension Locked {
    /// The value `compute` gives the first time it is asked for, kept: for memos of immutable things
    /// (a model's version hashes). Computed under the lock, so it is computed once.
    package func memoized<Wrapped>(_ compute: () -> Wrapped) -> Wrapped where Value == Wrapped? {
        withLock { value in
            if let value { return value }
            let computed = compute()
            value = computed
            return computed
        }
    }
}

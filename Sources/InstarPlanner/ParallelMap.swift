@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts
import Dispatch
import Foundation

/// `map` over independent items on all cores, results in input order.
enum ParallelMap {
    static func map<T: Sendable, R>(_ items: [T], _ transform: @Sendable (T) -> R) -> [R] {
        guard items.count > 1 else { return items.map(transform) }
        let results = ResultBox<R>(count: items.count)
        DispatchQueue.concurrentPerform(iterations: items.count) { i in
            results.set(i, transform(items[i]))
        }
        return results.values()
    }
}

/// Slots written by concurrent iterations, each exactly once.
private final class ResultBox<R>: @unchecked Sendable {
    private var slots: [R?]
    private let lock = NSLock()

    init(count: Int) {
        slots = Array(repeating: nil, count: count)
    }

    func set(_ index: Int, _ value: R) {
        lock.lock()
        slots[index] = value
        lock.unlock()
    }

    func values() -> [R] { slots.map { $0! } }
}

extension Plan {
    /// Computes (and memoises) every version's hashes on all cores. Detecting a store's version
    /// compares its hashes with each version's; for a long history, one by one on one core is slow.
    package func prepareVersionHashes() {
        _ = ParallelMap.map(versions) { $0.versionHashes }
    }
}

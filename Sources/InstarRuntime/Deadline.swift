import Foundation
@_spi(Layouts) import InstarModel

/// Where a run reads the time its budget is counted in.
///
/// Apps and the command line count a budget in wall-clock time (``system``). A test counts it in work
/// it controls instead — a clock that moves only when the test's hook or SQL function says so — so
/// that whether a budget runs out inside a batch or between two never depends on how fast the
/// machine running the test is.
package struct BudgetClock: Sendable {
    /// The current time on this clock.
    package let now: @Sendable () -> Date

    package init(now: @escaping @Sendable () -> Date) { self.now = now }

    /// Wall-clock time.
    package static let system = BudgetClock { Date() }
}

/// The moment a run's time budget is spent, on the clock it was measured with.
package struct Deadline: Sendable {
    /// When the budget is spent.
    package let end: Date
    /// The clock the budget is counted on.
    package let clock: BudgetClock

    /// A budget of `seconds` from now on `clock`.
    package init(seconds: TimeInterval, clock: BudgetClock) {
        self.clock = clock
        self.end = clock.now().addingTimeInterval(seconds)
    }

    /// True once the budget is spent.
    package var hasPassed: Bool { clock.now() >= end }

    /// Seconds left (negative once spent).
    package var remaining: TimeInterval { end.timeIntervalSince(clock.now()) }
}

/// A clock that moves only when told: budgets in tests are counted in the work the test does.
package final class ManualBudgetClock: Sendable {
    private let current = Locked(Date(timeIntervalSinceReferenceDate: 0))

    package init() {}

    /// Moves the clock forward.
    package func advance(by seconds: TimeInterval) { current.withLock { $0.addTimeInterval(seconds) } }

    /// This clock, as a run reads it.
    package var clock: BudgetClock { BudgetClock { [current] in current.current } }
}

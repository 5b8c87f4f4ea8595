import InstarStore

/// Why a seed request was not carried out. A refused request wrote nothing (the checks run before the
/// transaction); a failed one was rolled back, so the store is exactly as it was either way.
package struct SeedError: Error, Sendable, CustomStringConvertible {
    /// One reason the model cannot satisfy the request, with the entity and property it concerns.
    package struct Refusal: Sendable, Hashable, CustomStringConvertible {
        package var entity: String?
        package var property: String?
        package var reason: String

        package init(entity: String? = nil, property: String? = nil, reason: String) {
            self.entity = entity
            self.property = property
            self.reason = reason
        }

        package var description: String {
            let subject = [entity, property].compactMap { $0 }.joined(separator: ".")
            return (subject.isEmpty ? "" : subject + ": ") + reason
        }
    }

    package var path: String
    /// Every reason the request was refused (empty when the store failed instead).
    package var refusals: [Refusal]
    /// What went wrong in the store (SQLite, the layout, a constraint), when it was not a refusal.
    package var failure: StoreError?

    package init(path: String, refusals: [Refusal]) {
        self.path = path
        self.refusals = refusals
        self.failure = nil
    }

    package init(_ failure: StoreError) {
        self.path = failure.path
        self.refusals = []
        self.failure = failure
    }

    package var isRefusal: Bool { failure == nil }

    package var description: String {
        if let failure { return failure.description + "\n  (nothing was written: the seed was rolled back)" }
        let lines = refusals.map { "  - \($0)" }.joined(separator: "\n")
        return "\(path): cannot seed the store as asked; nothing was written:\n" + lines
    }
}

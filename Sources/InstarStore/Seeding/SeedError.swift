/// Why a seed request was not carried out. A refused request wrote nothing (the checks run before the
/// transaction); a failed one was rolled back, so the store is exactly as it was either way.
public struct SeedError: Error, Sendable, CustomStringConvertible {
    /// One reason the model cannot satisfy the request, with the entity and property it concerns.
    public struct Refusal: Sendable, Hashable, CustomStringConvertible {
        public var entity: String?
        public var property: String?
        public var reason: String

        public init(entity: String? = nil, property: String? = nil, reason: String) {
            self.entity = entity
            self.property = property
            self.reason = reason
        }

        public var description: String {
            let subject = [entity, property].compactMap { $0 }.joined(separator: ".")
            return (subject.isEmpty ? "" : subject + ": ") + reason
        }
    }

    public var path: String
    /// Every reason the request was refused (empty when the store failed instead).
    public var refusals: [Refusal]
    /// What went wrong in the store (SQLite, the layout, a constraint), when it was not a refusal.
    public var failure: StoreError?

    public init(path: String, refusals: [Refusal]) {
        self.path = path
        self.refusals = refusals
        self.failure = nil
    }

    public init(_ failure: StoreError) {
        self.path = failure.path
        self.refusals = []
        self.failure = failure
    }

    public var isRefusal: Bool { failure == nil }

    public var description: String {
        if let failure { return failure.description + "\n  (nothing was written: the seed was rolled back)" }
        let lines = refusals.map { "  - \($0)" }.joined(separator: "\n")
        return "\(path): cannot seed the store as asked; nothing was written:\n" + lines
    }
}

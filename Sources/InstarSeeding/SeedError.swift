@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore

/// Why a seed request was not carried out. A refused request wrote nothing (the checks run before the
/// transaction); a failed one was rolled back, so the store is exactly as it was either way.
package struct SeedError: Error, Sendable, CustomStringConvertible {
    /// One reason the model cannot satisfy the request, with the entity and property it concerns.
    package struct Refusal: Sendable, Hashable, CustomStringConvertible {
        /// Why the request cannot be carried out, as values; ``description`` is the one place it
        /// becomes words.
        package enum Reason: Sendable, Hashable, CustomStringConvertible {
            /// The request asks for fewer than 0 rows per entity.
            case negativeRows(Int)
            /// The request asks for more rows per entity than `maximum`.
            case tooManyRows(Int, maximum: Int)
            /// A per-entity count names an entity the version does not have.
            case unknownEntity(version: String)
            /// A per-entity count is below 0 or above `maximum`.
            case rowCountOutOfRange(Int, maximum: Int)
            /// A per-entity count asks rows of an abstract entity.
            case abstractEntity
            /// The table's highest key leaves no room for the new keys below `Int64.max`.
            case keysOverflow(highest: Int64)
            /// A required to-one whose destination gets no rows in this seed.
            case requiredToOneWithoutRows(destination: String)
            /// A uniqueness constraint made distinct through an attribute whose type has fewer than
            /// `keys` distinct values.
            case uniqueValuesExhausted(constraint: [String], type: AttributeType, keys: Int64, limit: Int64)
            /// A uniqueness constraint over more Booleans than can be enumerated.
            case tooManyBooleans(constraint: [String])
            /// A uniqueness constraint over Booleans has `free` unused combinations of `total`, fewer than `needed`.
            case booleanCombinationsExhausted(constraint: [String], total: Int, free: Int, needed: Int)
            /// A uniqueness constraint with no attribute whose values can be made distinct.
            case noDistinctAttribute(constraint: [String])
            /// The store's schema is not that of `version`, by `difference`.
            case storeNotAtVersion(String, difference: SchemaDifference)

            package var description: String {
                switch self {
                case .negativeRows(let rows):
                    return "the number of rows must be 0 or more, not \(rows)"
                case .tooManyRows(let rows, let maximum):
                    return "the number of rows must be at most \(maximum), not \(rows)"
                case .unknownEntity(let version):
                    return "no such entity in version \(version)"
                case .rowCountOutOfRange(let rows, let maximum):
                    return "a row count must be between 0 and \(maximum), not \(rows)"
                case .abstractEntity:
                    return "the entity is abstract: it has no rows of its own (seed its sub-entities)"
                case .keysOverflow(let highest):
                    return "new keys would pass \(Int64.max): the table's highest key is \(highest)"
                case .requiredToOneWithoutRows(let destination):
                    return "a required to-one to '\(destination)', which gets no rows in this seed "
                        + "(its count is 0, or it is abstract without seeded sub-entities); seeding links only to rows "
                        + "it writes, so give '\(destination)' rows or make the relationship optional"
                case .uniqueValuesExhausted(let constraint, let type, let keys, let limit):
                    return "\(Self.label(constraint)): a \(type.xcodeName) attribute is made distinct from the row's key, and this "
                        + "seed's keys reach \(keys), beyond the \(limit) distinct values it can take"
                case .tooManyBooleans(let constraint):
                    return "\(Self.label(constraint)): too many Boolean attributes to enumerate their combinations"
                case .booleanCombinationsExhausted(let constraint, let total, let free, let needed):
                    return "\(Self.label(constraint)) over Boolean attributes allows \(total) rows in all; "
                        + "\(free) combinations are free and this seed writes \(needed) rows"
                case .noDistinctAttribute(let constraint):
                    return "\(Self.label(constraint)) has no attribute whose values can be made distinct (relationships or undefined types "
                        + "only), so uniqueness cannot be guaranteed by construction"
                case .storeNotAtVersion(let version, let difference):
                    return "the store is not at version \(version): \(difference)"
                }
            }

            private static func label(_ constraint: [String]) -> String {
                "unique (" + constraint.joined(separator: ", ") + ")"
            }
        }

        package var entity: String?
        package var property: String?
        package var reason: Reason

        package init(entity: String? = nil, property: String? = nil, reason: Reason) {
            self.entity = entity
            self.property = property
            self.reason = reason
        }

        package var description: String {
            let subject = [entity, property].compactMap { $0 }.joined(separator: ".")
            return (subject.isEmpty ? "" : subject + ": ") + reason.description
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

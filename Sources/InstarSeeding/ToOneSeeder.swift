@_spi(Layouts) import InstarStore

/// The links of one entity's rows through one to-one relationship, chosen arithmetically.
///
/// - A to-one whose inverse is to-many (or that has no inverse) points row `j` of its pool to about
///   `j·P/C` of the destination's `P` rows, minus a random 0–2: destinations get 0 to a few rows each,
///   in a realistic spread. Within one pool (a parent of the same entity) only earlier rows are
///   chosen, so the links form a forest, never a cycle.
/// - A one-to-one pairs rows so that both sides agree: row `j` of the side that sorts first with row
///   `j` (or `j+1` within one pool, `next`/`previous` style) of the other, and a relationship that is its
///   own inverse pairs rows two by two. A pair is left out only when both sides are optional.
/// - An optional link is NULL on the entity's second row and on about one row in eight after it; a
///   required one never is.
package struct ToOneSeeder: Sendable {
    package enum Mode: Sendable, Hashable {
        case many
        /// `first`: this side sorts first (its index names the pair); `shift`: 1 within one pool.
        case oneToOne(first: Bool, shift: Int64, bothOptional: Bool)
        case selfInverse
    }

    package let column: String
    package let destination: SeedPool
    /// The number of rows of the relationship's declaring entity (its pool), and where this entity's
    /// rows start among them.
    let sourceCount: Int64
    let sourceOffset: Int64
    let mode: Mode
    let isOptional: Bool
    let samePool: Bool
    let stream: UInt64
    let pairStream: UInt64

    package init(
        column: String, destination: SeedPool, sourceCount: Int64, sourceOffset: Int64, mode: Mode, isOptional: Bool,
        samePool: Bool, stream: UInt64, pairStream: UInt64
    ) {
        self.column = column
        self.destination = destination
        self.sourceCount = sourceCount
        self.sourceOffset = sourceOffset
        self.mode = mode
        self.isOptional = isOptional
        self.samePool = samePool
        self.stream = stream
        self.pairStream = pairStream
    }

    /// The destination pool index of the entity's `index`th row, or nil for NULL.
    package func target(index: Int64) -> Int64? {
        let p = destination.count
        guard p > 0 else { return nil }
        let j = sourceOffset + index
        switch mode {
        case .many:
            if isOptional && (index == 1 || SeedRandom.below(8, stream ^ 0x6E75_6C6C, UInt64(j)) == 0) { return nil }
            // j·P/C, exact in 128 bits (j < C, so the quotient is below P).
            let product = UInt64(j).multipliedFullWidth(by: UInt64(p))
            let base = Int64(UInt64(max(sourceCount, 1)).dividingFullWidth(product).quotient)
            let back = Int64(SeedRandom.below(3, stream, UInt64(j)))
            if samePool {
                let earlier = min(base, j) - 1 - back
                if earlier >= 0 { return earlier }
                // The first row has no earlier one: a required link points at itself.
                return j > 0 ? 0 : (isOptional ? nil : 0)
            }
            return max(0, min(p - 1, base - back))
        case .oneToOne(let first, let shift, let bothOptional):
            let t = ((first ? j + shift : j - shift) % p + p) % p
            if bothOptional && SeedRandom.below(8, pairStream, UInt64(first ? j : t)) == 0 { return nil }
            return t
        case .selfInverse:
            let partner = j ^ 1
            if partner < p { return partner }
            return isOptional ? nil : j % p
        }
    }
}

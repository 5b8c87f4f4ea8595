@_spi(Layouts) import InstarStore

/// The rows of one join table: each owner row linked to one to three destination rows (within a
/// to-many's minimum and maximum counts), chosen arithmetically from the row's index.
///
/// A relationship that is its own inverse (`friends`) is symmetric: its links are the undirected
/// pairs `{a, a+1}` of a ring plus `{a, a+2}` and `{a, a+3}` for about half the rows, and each pair is
/// written from both ends, as Core Data's inverse maintenance does. Within one pool, a row never links
/// to itself.
package struct JoinSeeder: Sendable {
    package let owners: SeedPool
    package let destinations: SeedPool
    let symmetric: Bool
    let samePool: Bool
    let minimum: Int64
    let maximum: Int64
    let stream: UInt64

    package init(
        owners: SeedPool, destinations: SeedPool, symmetric: Bool, minCount: Int, maxCount: Int, stream: UInt64
    ) {
        self.owners = owners
        self.destinations = destinations
        self.symmetric = symmetric
        self.samePool = owners == destinations
        self.minimum = Int64(max(minCount, 1))
        self.maximum = maxCount > 0 ? Int64(maxCount) : Int64.max
        self.stream = stream
    }

    /// The destination pool indexes of owner `j`, in the order of an ordered relationship.
    package func targets(of j: Int64) -> [Int64] {
        var result: [Int64] = []
        forEachTarget(of: j) { _, t in result.append(t) }
        return result
    }

    /// Calls `body` with the place (0-based) and destination pool index of each of owner `j`'s targets,
    /// in order: ``targets(of:)`` without an array per owner, for the seeding loop.
    @inline(__always)
    package func forEachTarget<E: Error>(of j: Int64, _ body: (Int, Int64) throws(E) -> Void) throws(E) {
        let p = destinations.count
        if symmetric {
            for (place, t) in ring(j, p).enumerated() { try body(place, t) }
            return
        }
        let available = samePool ? p - 1 : p
        guard available > 0 else { return }
        let wanted = 1 + Int64(SeedRandom.below(3, stream, UInt64(j)))
        let k = min(min(max(wanted, minimum), maximum), available)
        let start = Int64(SeedRandom.below(UInt64(available), stream ^ 0x7374_6172, UInt64(j)))
        for m in 0..<k {
            let t = (start + m) % available
            try body(Int(m), samePool ? (j + 1 + t) % p : t)
        }
    }

    private func ring(_ a: Int64, _ p: Int64) -> [Int64] {
        guard p > 1 else { return [] }
        var result: [Int64] = []
        for delta: Int64 in 1...3 {
            for (from, to) in [(a, (a + delta) % p), (((a - delta) % p + p) % p, a)] {
                let included = delta == 1 || SeedRandom.below(2, stream &+ UInt64(delta), UInt64(from)) == 0
                let other = from == a ? to : from
                if included && other != a && !result.contains(other) { result.append(other) }
            }
        }
        return result
    }
}

extension JoinSeeder {
    /// Owner `j`'s place in destination `t`'s ordered set (the inverse side of an ordered pair): its
    /// place in `t`'s own list when the relationship is symmetric, else its ordinal among the owners.
    package func ownerPosition(of j: Int64, in t: Int64) -> Int64 {
        if symmetric, let place = targets(of: t).firstIndex(of: j) { return Int64(place + 1) }
        return j + 1
    }
}

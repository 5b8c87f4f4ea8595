/// The order in which Core Data walks an entity's properties when it lays out join tables.
///
/// Which side of a many-to-many pair names the join table, and which of several colliding join columns
/// gets the suffix `1`, `2`, …, follow from the order in which Core Data's store-mapping generator meets
/// the relationships. That order is neither the entity numbering nor name order: it is the slot order of
/// two of the framework's private hash tables, filled one after the other with the entity's property
/// keys. No sample contradicts this reconstruction and several are explained by nothing simpler
/// (`docs/coredata-layout.md` lists the stores):
///
/// - CareKit 2.1: `OCKCDTag` pairs with five entities; the columns are `Z_13TAGS` (care plans),
///   `Z_13TAGS1` (contacts), `Z_13TAGS2` (tasks), `Z_13TAGS3` (outcomes), `Z_13TAGS4` (patients), and the
///   task table is `Z_14TAGS`, named from entity 14 although the tag is entity 13;
/// - reflexive pairs (`next`/`previous` on five CareKit entities, `favorites`/`favoriteFolders` at
///   DuckDuckGo, `blocking`/`blockedBy` in EasyLife, Wire's `trustedClients`/`trustedByClients`, whose
///   table name changes between versions as the entity's other properties change).
///
/// Only the resulting order is reproduced here, as a value computed from names; the tables themselves
/// play no other part in Instar.
package enum CoreDataKeyOrder {
    /// The slot order after inserting `keys` (in that order) into the first table ("Leopard": open
    /// addressing over a power-of-two bucket array, growing as it fills, rehashing in slot order).
    package static func leopard(_ keys: [String]) -> [String] {
        var table = LeopardTable()
        for key in keys { table.insert(key) }
        return table.slots.compactMap { $0 }
    }

    /// The slot order after inserting `keys` (in that order) into the second table ("Tiger": a prime
    /// number of buckets sized once for the key count, linear probing).
    package static func tiger(_ keys: [String]) -> [String] {
        let index = tigerCapacities.firstIndex { $0 >= keys.count } ?? tigerCapacities.count - 1
        let buckets = tigerPrimes[index]
        var slots = [String?](repeating: nil, count: buckets)
        for key in keys {
            var slot = Int(stringHash(key, truncateLong: true) % UInt32(buckets))
            while slots[slot] != nil { slot = (slot + 1) % buckets }
            slots[slot] = key
        }
        return slots.compactMap { $0 }
    }

    private static let tigerCapacities = [
        4, 8, 17, 29, 47, 76, 123, 199, 322, 521, 843, 1364, 2207, 3571, 5778, 9349, 15127, 24476, 39603, 64079,
    ]
    private static let tigerPrimes = [
        5, 11, 23, 41, 67, 113, 199, 317, 521, 839, 1361, 2207, 3571, 5779, 9349, 15121, 24473, 39607, 64081, 103681,
    ]

    /// The framework's string hash over UTF-16 units, 32 bits. The second table hashes only the first
    /// eight and last sixteen units of a name longer than 23; the first hashes every unit.
    package static func stringHash(_ string: String, truncateLong: Bool) -> UInt32 {
        let units = Array(string.utf16)
        let length = units.count
        var result = UInt32(truncatingIfNeeded: length)
        func mixFour(_ start: Int) {
            let a = UInt32(units[start]), b = UInt32(units[start + 1])
            let c = UInt32(units[start + 2]), d = UInt32(units[start + 3])
            result = result &* 67_503_105 &+ (a &* 16_974_593 &+ b &* 66_049 &+ c &* 257 &+ d)
        }
        if truncateLong && length > 23 {
            for start in [0, 4, length - 16, length - 12, length - 8, length - 4] { mixFour(start) }
        } else {
            var index = 0
            while index + 4 <= length & ~3 {
                mixFour(index)
                index += 4
            }
            while index < length {
                result = result &* 257 &+ UInt32(units[index])
                index += 1
            }
        }
        return result &+ (result << UInt32(length & 31))
    }

    /// The first table's bucket scramble of a string hash.
    static func scramble(_ h: UInt32) -> UInt32 {
        var b = (1_264_676_453 &- h) ^ ((h &- 1) << 8)
        var c = (2 &- h &- b) ^ (b >> 13)
        var a = (h &- 1 &- b &- c) ^ (c >> 12)
        b = (b &- c &- a) ^ (a << 16)
        c = (c &- a &- b) ^ (b >> 5)
        a = (a &- b &- c) ^ (c >> 3)
        b = (b &- c &- a) ^ (a << 10)
        return (c &- a &- b) ^ (b >> 15)
    }

    private struct LeopardTable {
        var count = 0
        var capacity = 3
        var slots: [String?] = []

        mutating func insert(_ key: String) {
            if slots.isEmpty || count == capacity { grow() }
            let slot = find(key)
            if slots[slot] == nil {
                slots[slot] = key
                count += 1
            }
        }

        private mutating func grow() {
            let old = slots
            capacity = 3 << bitLength(count / 3)
            slots = [String?](repeating: nil, count: 4 << bitLength((capacity - 1) / 3))
            for key in old.compactMap({ $0 }) { slots[find(key)] = key }
        }

        private func find(_ key: String) -> Int {
            var slot = Int(CoreDataKeyOrder.scramble(CoreDataKeyOrder.stringHash(key, truncateLong: false))) & (slots.count - 1)
            while let taken = slots[slot], taken != key { slot = (slot + 1) % slots.count }
            return slot
        }

        private func bitLength(_ value: Int) -> Int { value == 0 ? 0 : Int.bitWidth - value.leadingZeroBitCount }
    }
}

import Foundation
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts

/// The values of one attribute column for the rows of one entity: the edge values first, then a NULL
/// (optional attributes) and the default (attributes that have one), then ordinary values with NULLs
/// and defaults mixed in. Computed from the row's index and key alone, so nothing is kept per row.
package struct AttributeSeeder: Sendable {
    /// What a uniqueness constraint asks of this attribute.
    package enum Role: Sendable {
        case plain
        /// Distinct on every row, derived from the key (the constraint's chosen component).
        case distinct
        /// One bit of the constraint's combination for the row (constraints made of Booleans only):
        /// `combinations[key - firstKey]` holds the row's combination (rows of the whole table take
        /// different ones), `bit` this attribute's place in it.
        case combination(bit: Int, combinations: [UInt64], firstKey: Int64)
    }

    package let attribute: Attribute
    package let role: Role
    let stream: UInt64
    let edges: [SQLValue]
    let storedDefault: SQLValue?
    let encoding: SeedEncoding
    let blobPrefix: Data
    /// The column's own `CHECK` clause, when it has one: values it rejects are replaced.
    package var check: SeedColumnCheck?

    /// Share of ordinary rows (in percent) that are NULL, and that take the default.
    static let nullPercent: UInt64 = 12
    static let defaultPercent: UInt64 = 10

    package init(
        attribute: Attribute, entity: String, role: Role, layout: any StoreLayout, encoding: SeedEncoding,
        random: SeedRandom
    ) {
        self.attribute = attribute
        self.role = role
        self.stream = random.stream(entity, attribute.name)
        self.encoding = encoding
        let prefix = SeedEncoding.blobPrefix(of: attribute, layout: layout)
        self.blobPrefix = prefix
        self.edges = SeedEdgeValues.values(for: attribute.type).map { encoding.stored($0, blobPrefix: prefix) }
        self.storedDefault = layout.storedDefault(of: attribute).flatMap { $0 == .null ? nil : $0 }
    }

    /// The value of the `index`th row this seed writes for the entity, whose primary key is `key`;
    /// with a `CHECK` clause, the first of that value, the default, NULL and a few other ordinary values
    /// that the clause accepts (the first candidate when none is, so that the seed stops with its error).
    package func value(index: Int64, key: Int64) -> SQLValue {
        let first = candidate(index: index, key: key)
        guard let check, !check.accepts(first) else { return first }
        var fallbacks: [SQLValue] = [storedDefault, attribute.isOptional ? .null : nil].compactMap { $0 }
        for k in 1...16 {
            if let scalar = SeedOrdinaryValues.value(for: attribute.type, stream: stream, index: UInt64(index) &+ UInt64(k) &* 7919) {
                fallbacks.append(encoding.stored(scalar, blobPrefix: blobPrefix))
            }
        }
        return fallbacks.first(where: check.accepts) ?? first
    }

    private func candidate(index: Int64, key: Int64) -> SQLValue {
        let i = UInt64(index)
        switch role {
        case .distinct:
            guard let scalar = SeedUniqueValues.value(for: attribute.type, key: key, index: i, stream: stream) else { return .null }
            return encoding.stored(scalar, blobPrefix: blobPrefix)
        case .combination(let bit, let combinations, let firstKey):
            return .integer(Int64((combinations[Int(key - firstKey)] >> UInt64(bit)) & 1))
        case .plain:
            break
        }
        let nullable = attribute.isOptional
        // The model's sample values replace arbitrary text, edge values included: the app parses it.
        let count = attribute.seedValues.isEmpty ? Int64(edges.count) : 0
        if index < count { return edges[Int(index)] }
        if nullable && index == count { return .null }
        if let storedDefault, index == count + 1 { return storedDefault }
        let draw = SeedRandom.below(100, stream ^ 0x6E75_6C6C, i)
        if nullable && draw < Self.nullPercent { return .null }
        if let storedDefault, draw >= Self.nullPercent && draw < Self.nullPercent + Self.defaultPercent {
            return storedDefault
        }
        if !attribute.seedValues.isEmpty {
            return .text(attribute.seedValues[Int(SeedRandom.below(UInt64(attribute.seedValues.count), stream, i))])
        }
        guard let scalar = SeedOrdinaryValues.value(for: attribute.type, stream: stream, index: i) else { return .null }
        return encoding.stored(scalar, blobPrefix: blobPrefix)
    }
}

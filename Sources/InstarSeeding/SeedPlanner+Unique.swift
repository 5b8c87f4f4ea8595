@_spi(Layouts) import InstarLayouts
import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore

extension SeedPlanner {
    /// What the table's uniqueness constraints ask of `entity`'s attributes.
    ///
    /// A constraint is enforced on the whole table (its index covers every entity of the hierarchy), so
    /// each entity whose rows fill all its columns honours it: one attribute that can be made distinct
    /// (strings, numbers, dates, UUIDs, blobs) is derived from the row's new key; a constraint made of
    /// Booleans only gets a different combination per row, among those no existing row has, and is
    /// refused when there are fewer combinations than rows; anything else (relationships only) cannot be
    /// guaranteed by construction and is refused.
    mutating func uniqueRoles(for entity: String, table: String, _ db: Database) throws -> [String: AttributeSeeder.Role] {
        guard let storage = map.entities[entity], let info = map.entityTables[table], let keys = tableKeys[table] else { return [:] }
        var propertyOfColumn: [String: String] = [:]
        for (property, column) in storage.columns { propertyOfColumn[column] = property }
        var roles: [String: AttributeSeeder.Role] = [:]
        for member in map.entities[info.root]?.kinds ?? [] {
            guard let declared = model.entity(named: member), let memberStorage = map.entities[member] else { continue }
            for constraint in declared.uniquenessConstraints {
                let columns = constraint.compactMap { memberStorage.columns[$0] }
                guard columns.count == constraint.count, !columns.isEmpty else { continue }
                let properties = columns.compactMap { propertyOfColumn[$0] }
                guard properties.count == columns.count else { continue }  // some column is not this entity's
                let attributes = properties.map { model.property($0, of: entity)?.property.attribute }
                if let chosen = attributes.compactMap({ $0 }).first(where: { SeedUniqueValues.keyLimit(for: $0.type) != 0 }) {
                    if let limit = SeedUniqueValues.keyLimit(for: chosen.type), keys.upperBound > limit {
                        refuse(
                            entity, chosen.name,
                            .uniqueValuesExhausted(constraint: constraint, type: chosen.type, keys: keys.upperBound, limit: limit))
                    }
                    roles[chosen.name] = .distinct
                } else if attributes.allSatisfy({ $0?.type == .boolean }) {
                    guard let free = try freeCombinations(columns, table: table, db) else {
                        refuse(entity, nil, .tooManyBooleans(constraint: constraint))
                        continue
                    }
                    let needed = keys.count
                    if needed > free.count {
                        refuse(
                            entity, properties.first,
                            .booleanCombinationsExhausted(
                                constraint: constraint, total: 1 << columns.count, free: free.count, needed: Int(needed)))
                        continue
                    }
                    for (bit, property) in properties.enumerated() {
                        roles[property] = .combination(bit: bit, combinations: free, firstKey: keys.lowerBound)
                    }
                } else {
                    refuse(entity, properties.first, .noDistinctAttribute(constraint: constraint))
                }
            }
        }
        return roles
    }

    /// The combinations of a Booleans-only constraint no existing row has (bit i: column i), or nil
    /// when there are too many columns to enumerate.
    private mutating func freeCombinations(_ columns: [String], table: String, _ db: Database) throws -> [UInt64]? {
        guard columns.count <= 16 else { return nil }
        if let known = combinations[columns] { return known }
        let list = columns.map(SQLIdentifier.quoted).joined(separator: ", ")
        let present = columns.map { "\(SQLIdentifier.quoted($0)) IS NOT NULL" }.joined(separator: " AND ")
        var taken = Set<UInt64>()
        let rows = try Row.fetchCursor(db, sql: "SELECT DISTINCT \(list) FROM \(SQLIdentifier.quoted(table)) WHERE \(present)")
        while let row = try rows.next() {
            var combination: UInt64 = 0
            for i in 0..<columns.count where (row[i] as Int64? ?? 0) != 0 { combination |= 1 << UInt64(i) }
            taken.insert(combination)
        }
        let free = (0..<(UInt64(1) << UInt64(columns.count))).filter { !taken.contains($0) }
        combinations[columns] = free
        return free
    }
}

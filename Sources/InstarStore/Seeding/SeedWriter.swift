import GRDB

/// Writes a ``SeedPlan``: each entity's rows, then each join table's, streaming one batch at a time.
struct SeedWriter {
    let db: Database

    /// Writes the rows of one concrete entity; returns how many.
    func write(_ plan: SeedEntityPlan) throws -> Int {
        let inserter = try SeedInserter(db, table: plan.table, columns: plan.columns)
        var targets = [Int64?](repeating: nil, count: plan.toOnes.count)
        for index in 0..<plan.block.count {
            let key = plan.block.firstKey + index
            for (i, link) in plan.toOnes.enumerated() { targets[i] = link.target(index: index) }
            for fill in plan.fills {
                try inserter.append(value(fill, index: index, key: key, plan: plan, targets: targets))
            }
        }
        try inserter.flush()
        return inserter.written
    }

    @inline(__always)
    private func value(_ fill: SeedFill, index: Int64, key: Int64, plan: SeedEntityPlan, targets: [Int64?]) -> SQLValue {
        switch fill {
        case .key: return .integer(key)
        case .constant(let value): return value
        case .attribute(let seeder): return seeder.value(index: index, key: key)
        case .link(let i):
            guard let target = targets[i] else { return .null }
            return .integer(plan.toOnes[i].destination.row(at: target).key)
        case .linkEntity(let i):
            guard let target = targets[i] else { return .null }
            return plan.toOnes[i].destination.row(at: target).block.discriminator ?? .null
        case .position(let i):
            // The row's ordinal in its pool orders the children of each destination (Core Data's
            // `Z_FOK_…` and Instar's `…_position` are sort keys).
            guard targets[i] != nil else { return .null }
            return .integer(plan.toOnes[i].sourceOffset + index + 1)
        }
    }

    /// Writes the link rows of one join table; returns how many.
    func write(_ plan: SeedJoinPlan) throws -> Int {
        var columns = [plan.ownerColumn, plan.destinationColumn]
        if let position = plan.destinationPosition { columns.append(position) }
        if let position = plan.ownerPosition { columns.append(position) }
        let inserter = try SeedInserter(db, table: plan.table, columns: columns)
        let seeder = plan.seeder
        for owner in 0..<seeder.owners.count {
            let ownerKey = seeder.owners.row(at: owner).key
            for (place, target) in seeder.targets(of: owner).enumerated() {
                try inserter.append(.integer(ownerKey))
                try inserter.append(.integer(seeder.destinations.row(at: target).key))
                if plan.destinationPosition != nil { try inserter.append(.integer(Int64(place + 1))) }
                if plan.ownerPosition != nil {
                    try inserter.append(.integer(seeder.ownerPosition(of: owner, in: target)))
                }
            }
        }
        try inserter.flush()
        return inserter.written
    }
}

import GRDB
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts

/// Writes a ``SeedPlan``: each entity's rows, then each join table's, streaming one batch at a time.
struct SeedWriter {
    let db: Database

    /// How one column is filled, with the payloads of ``SeedFill`` moved out to arrays: switching over a
    /// ``SeedFill`` copies its ``AttributeSeeder`` (a dozen retains and releases) for every value, while
    /// an index into an array reads the seeder in place.
    private enum Fill {
        case key
        case constant(Int)
        case attribute(Int)
        case link(Int)
        case linkEntity(Int)
        case position(Int)
    }

    /// Writes the rows of one concrete entity; returns how many.
    ///
    /// The hot loop of a large seed: each value is bound as it is computed (``SeedInserter``), and the
    /// plan's arrays are read in place, not copied per row.
    func write(_ plan: SeedEntityPlan) throws -> Int {
        let inserter = try SeedInserter(db, table: plan.table, columns: plan.columns)
        let toOnes = plan.toOnes
        var constants: [SQLValue] = [], seeders: [AttributeSeeder] = []
        let fills: [Fill] = plan.fills.map { fill in
            switch fill {
            case .key: return .key
            case .constant(let value): constants.append(value); return .constant(constants.count - 1)
            case .attribute(let seeder): seeders.append(seeder); return .attribute(seeders.count - 1)
            case .link(let i): return .link(i)
            case .linkEntity(let i): return .linkEntity(i)
            case .position(let i): return .position(i)
            }
        }
        var targets = [Int64?](repeating: nil, count: toOnes.count)
        for index in 0..<plan.block.count {
            let key = plan.block.firstKey + index
            for i in toOnes.indices { targets[i] = toOnes[i].target(index: index) }
            for fill in fills {
                switch fill {
                case .key: try inserter.appendInteger(key)
                case .constant(let c): try inserter.append(constants[c])
                case .attribute(let a): try seeders[a].bind(index: index, key: key, into: inserter)
                case .link(let i):
                    guard let target = targets[i] else { try inserter.appendNull(); continue }
                    try inserter.appendInteger(toOnes[i].destination.key(at: target))
                case .linkEntity(let i):
                    guard let target = targets[i] else { try inserter.appendNull(); continue }
                    try inserter.append(toOnes[i].destination.row(at: target).block.discriminator ?? .null)
                case .position(let i):
                    // The row's ordinal in its pool orders the children of each destination (Core Data's
                    // `Z_FOK_…` and Instar's `…_position` are sort keys).
                    guard targets[i] != nil else { try inserter.appendNull(); continue }
                    try inserter.appendInteger(toOnes[i].sourceOffset + index + 1)
                }
            }
        }
        try inserter.flush()
        return inserter.written
    }

    /// Writes the link rows of one join table; returns how many.
    func write(_ plan: SeedJoinPlan) throws -> Int {
        var columns = [plan.ownerColumn, plan.destinationColumn]
        if let position = plan.destinationPosition { columns.append(position) }
        if let position = plan.ownerPosition { columns.append(position) }
        let inserter = try SeedInserter(db, table: plan.table, columns: columns)
        let seeder = plan.seeder
        let destinationPosition = plan.destinationPosition != nil, ownerPosition = plan.ownerPosition != nil
        for owner in 0..<seeder.owners.count {
            let ownerKey = seeder.owners.key(at: owner)
            try seeder.forEachTarget(of: owner) { place, target in
                try inserter.appendInteger(ownerKey)
                try inserter.appendInteger(seeder.destinations.key(at: target))
                if destinationPosition { try inserter.appendInteger(Int64(place + 1)) }
                if ownerPosition { try inserter.appendInteger(seeder.ownerPosition(of: owner, in: target)) }
            }
        }
        try inserter.flush()
        return inserter.written
    }
}

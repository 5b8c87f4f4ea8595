@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore

extension SeedPlanner {
    /// One plan per join table whose both sides get rows: the owners are the rows of the relationship
    /// the table was laid out from (its declaring entity and descendants), the destinations those of its
    /// destination entity.
    func joinPlans() -> [SeedJoinPlan] {
        map.joinTables.keys.sorted().compactMap { name -> SeedJoinPlan? in
            let join = map.joinTables[name]!
            let key = join.relationship
            guard let relationship = model.property(key.name, of: key.entity)?.property.relationship else { return nil }
            let owners = pool(of: key.entity)
            let destinations = pool(of: relationship.destination)
            guard !owners.isEmpty, !destinations.isEmpty else { return nil }
            var symmetric = false
            if let inverse = relationship.inverse, inverse == relationship.name,
                model.property(inverse, of: relationship.destination)?.declaringEntity == key.entity
            {
                symmetric = true
            }
            let seeder = JoinSeeder(
                owners: owners, destinations: destinations, symmetric: symmetric, minCount: relationship.minCount,
                maxCount: relationship.maxCount, stream: random.stream("join", name))
            return SeedJoinPlan(
                table: name, ownerColumn: join.ownerColumn, destinationColumn: join.destinationColumn,
                destinationPosition: join.destinationPosition, ownerPosition: join.ownerPosition, seeder: seeder)
        }
    }
}

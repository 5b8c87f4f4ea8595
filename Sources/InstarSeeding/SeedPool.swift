@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts

/// The rows one seed writes for an entity of a table: a run of consecutive new keys.
package struct SeedBlock: Sendable, Hashable {
    package var entity: String
    package var firstKey: Int64
    package var count: Int64
    /// The entity's discriminator value (Core Data's `Z_ENT`, Instar's `_entity`), when its table has one.
    package var discriminator: SQLValue?
}

/// The new rows that links to an entity may point at: the blocks of the entity and its descendants.
///
/// Keys are handed out arithmetically (after the table's highest key, block after block), so a link
/// is an index into the pool turned into a key, never a lookup, and nothing is held per row. Links go
/// to rows this seed writes only: the keys of earlier rows are not known without reading them all.
package struct SeedPool: Sendable, Hashable {
    package var blocks: [SeedBlock]

    package init(blocks: [SeedBlock]) {
        self.blocks = blocks.filter { $0.count > 0 }
    }

    package var count: Int64 { blocks.reduce(0) { $0 + $1.count } }
    package var isEmpty: Bool { count == 0 }

    /// The block and key of the pool's `index`th row.
    @inline(__always)
    package func row(at index: Int64) -> (block: SeedBlock, key: Int64) {
        var rest = index
        for block in blocks {
            if rest < block.count { return (block, block.firstKey + rest) }
            rest -= block.count
        }
        preconditionFailure("seed pool index \(index) out of range \(count)")
    }

    /// The key of the pool's `index`th row: ``row(at:)`` without copying the block, for the seeding loop.
    @inline(__always)
    package func key(at index: Int64) -> Int64 {
        var rest = index
        for b in blocks.indices {
            let count = blocks[b].count
            if rest < count { return blocks[b].firstKey + rest }
            rest -= count
        }
        preconditionFailure("seed pool index \(index) out of range \(count)")
    }

    /// Where the rows of `entity` start within this pool (the pool of one of its ancestors).
    package func offset(of entity: String) -> Int64? {
        var offset: Int64 = 0
        for block in blocks {
            if block.entity == entity { return offset }
            offset += block.count
        }
        return nil
    }
}

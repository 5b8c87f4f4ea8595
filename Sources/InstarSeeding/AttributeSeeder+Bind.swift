@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts
import Foundation
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore

extension AttributeSeeder {
    /// Binds the value of the `index`th row (key `key`) straight into `inserter`: the value
    /// ``value(index:key:)`` gives, without building a `String`, `Data` or ``SQLValue`` payload for the
    /// ordinary rows, which are nearly all of a large seed.
    ///
    /// Only the common case takes the direct path (no `CHECK` clause, no sample values, no Boolean
    /// combination); the rest, and the edge, NULL and default rows at the top, go through
    /// ``value(index:key:)``, so both paths give the same bytes for a given seed.
    @inline(__always)
    func bind(index: Int64, key: Int64, into inserter: SeedInserter) throws {
        guard check == nil, attribute.seedValues.isEmpty else { return try inserter.append(value(index: index, key: key)) }
        switch role {
        case .plain: break
        case .distinct: return try bindDistinct(index: index, key: key, into: inserter)
        case .combination: return try inserter.append(value(index: index, key: key))
        }
        // Edges, then NULL, then the default: decided by `candidate`, and few.
        if index <= Int64(edges.count) + 1 { return try inserter.append(value(index: index, key: key)) }
        let i = UInt64(index)
        let draw = SeedRandom.below(100, stream ^ 0x6E75_6C6C, i)
        if attribute.isOptional && draw < Self.nullPercent { return try inserter.appendNull() }
        if let storedDefault, draw >= Self.nullPercent && draw < Self.nullPercent + Self.defaultPercent {
            return try inserter.append(storedDefault)
        }
        try bindOrdinary(i, into: inserter)
    }

    /// An ordinary value: text and blobs are assembled in the inserter's scratch bytes.
    @inline(__always)
    private func bindOrdinary(_ i: UInt64, into inserter: SeedInserter) throws {
        switch attribute.type {
        case .string:
            let r = SeedRandom.value(stream, i)
            try inserter.appendScratch(asText: true) { SeedOrdinaryValues.phrase(r, into: &$0) }
        case .uri:
            let r = SeedRandom.value(stream, i)
            try inserter.appendScratch(asText: true) { SeedOrdinaryValues.uri(r, into: &$0) }
        case .binary, .transformable:
            try inserter.appendScratch(asText: false) { bytes in
                bytes.append(contentsOf: blobPrefix)
                SeedOrdinaryValues.blob(stream: stream, index: i, into: &bytes)
            }
        case .uuid where encoding.values.uuids == .bytes:
            let a = SeedRandom.value(stream, i), b = SeedRandom.value(stream ^ 0x5555, i)
            try inserter.appendScratch(asText: false) { SeedOrdinaryValues.uuidBytes(a, b, into: &$0) }
        default:
            // Numbers and dates stored as numbers allocate nothing; ISO dates and UUID text are rare.
            guard let scalar = SeedOrdinaryValues.value(for: attribute.type, stream: stream, index: i) else {
                return try inserter.appendNull()
            }
            try inserter.append(encoding.stored(scalar, blobPrefix: blobPrefix))
        }
    }

    /// A unique string is its stem (an edge on the first two rows, else a phrase), " #" and the key;
    /// other unique values allocate nothing or are rare.
    @inline(__always)
    private func bindDistinct(index: Int64, key: Int64, into inserter: SeedInserter) throws {
        guard attribute.type == .string, index >= 2 else { return try inserter.append(value(index: index, key: key)) }
        let r = SeedRandom.value(stream, UInt64(index))
        try inserter.appendScratch(asText: true) { bytes in
            SeedOrdinaryValues.phrase(r, into: &bytes)
            bytes.append(contentsOf: " #".utf8)
            SeedOrdinaryValues.decimal(key, into: &bytes)
        }
    }
}

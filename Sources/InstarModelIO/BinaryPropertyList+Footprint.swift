import Foundation

extension BinaryPropertyList {
    /// What one object expands to, computed once per object.
    private struct Measured {
        var nodes: Int
        var height: Int
        var bytes: Int
    }

    /// The memo of the measuring pass: each object's footprint, and the objects on the current path
    /// (meeting one again is a cycle).
    private struct Memo {
        var measured: [Measured?]
        var onPath: [Bool]
        var footprint = Footprint()
    }

    /// Measures the graph under the top object without building it, refusing the first bound of
    /// ``ArchiveLimits`` it passes (or a cycle) with the figure found.
    ///
    /// Each object is measured once and its figure reused wherever it is referenced, so the work is one
    /// visit per object and one per reference in the file, however far sharing would expand the graph;
    /// the figures themselves are exact (saturating at `Int.max`), so a refusal says how far it would
    /// have expanded.
    func measure() throws(Failure) -> Footprint {
        var memo = Memo(
            measured: [Measured?](repeating: nil, count: offsets.count),
            onPath: [Bool](repeating: false, count: offsets.count))
        let top = try measure(topReference, depth: 0, memo: &memo)
        var footprint = memo.footprint
        footprint.nodes = top.nodes
        footprint.depth = top.height
        footprint.bytes = top.bytes
        guard top.nodes <= ArchiveLimits.totalReferences else {
            throw Failure(ArchiveLimitPassed(.totalReferences, found: top.nodes, maximum: ArchiveLimits.totalReferences))
        }
        guard top.bytes <= ArchiveLimits.expandedBytes else {
            throw Failure(ArchiveLimitPassed(.expandedBytes, found: top.bytes, maximum: ArchiveLimits.expandedBytes))
        }
        return footprint
    }

    private func measure(_ reference: Int, depth: Int, memo: inout Memo) throws(Failure) -> Measured {
        guard reference >= 0, reference < offsets.count else {
            throw Failure(message: "a reference to object \(reference) is out of range (\(offsets.count) objects)")
        }
        if let known = memo.measured[reference] {
            guard depth + known.height <= Self.maximumDepth else {
                throw Failure(ArchiveLimitPassed(.depth, found: depth + known.height, maximum: Self.maximumDepth))
            }
            return known
        }
        guard depth <= Self.maximumDepth else {
            throw Failure(ArchiveLimitPassed(.depth, found: depth, maximum: Self.maximumDepth))
        }
        guard !memo.onPath[reference] else {
            throw Failure(message: "the object graph is cyclic (object \(reference) contains itself)")
        }
        let start = offsets[reference]
        let marker = bytes[start]
        var result = Measured(nodes: 1, height: 0, bytes: 0)
        switch marker >> 4 {
        case 0x4, 0x5, 0x6:
            let (count, _) = try length(Int(marker & 0x0F), after: start)
            let width = marker >> 4 == 0x6 ? 2 : 1
            guard count <= bytes.count / width else { throw Failure(message: "an object runs past the end of the file") }
            result.bytes = count * width
        case 0xA, 0xC, 0xD:
            let (count, body) = try length(Int(marker & 0x0F), after: start)
            // Checked before a single reference is read.
            guard count <= ArchiveLimits.containerReferences else {
                throw Failure(
                    ArchiveLimitPassed(.containerReferences, found: count, maximum: ArchiveLimits.containerReferences))
            }
            memo.footprint.largestContainer = max(memo.footprint.largestContainer, count)
            let members = try references(at: body, count: marker >> 4 == 0xD ? 2 * count : count)
            memo.onPath[reference] = true
            for member in members {
                let below = try measure(member, depth: depth + 1, memo: &memo)
                result.nodes = Self.saturatingSum(result.nodes, below.nodes)
                result.bytes = Self.saturatingSum(result.bytes, below.bytes)
                result.height = max(result.height, below.height + 1)
            }
            memo.onPath[reference] = false
        default:
            break
        }
        memo.measured[reference] = result
        memo.footprint.objectsMeasured += 1
        return result
    }

    private static func saturatingSum(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? Int.max : sum
    }
}

/// How much a property list or keyed archive may hold before Instar refuses it, and which bound a
/// refused one passed.
///
/// Compiled models (`.mom`), a store's `Z_MODELCACHE`, its `Z_METADATA` plist and mapping models'
/// archived expressions all come from files Instar did not write. A few kilobytes can describe an
/// enormous graph: one array whose references repeat one object millions of times, arrays of arrays
/// sharing each other (doubling per level), a long string referenced over and over, or a DEFLATE
/// stream that inflates a thousandfold. Each bound below is checked *before* the nodes it counts are
/// built (the binary reader measures the graph first, in work proportional to the file), so a refusal
/// costs what the file costs, never what it expands to.
///
/// The figures come from the largest archives in the reference corpus (67 `.mom` files and store model
/// caches, measured 2026-11-28; the largest is CareKit's `SampleStore2.1` cache): 31,881 bytes,
/// 3,496 plist objects, 7,433 references (7,434 nodes once expanded: real archives share nothing that
/// expands), at most 529 references in one container, nesting 4 deep, 45,278 bytes of strings and data,
/// and 5,006 archived values decoded by the model reader. Each bound leaves a margin of more than 250×
/// over that (depth 16×, as text property lists nest a little deeper), so a model of thousands of
/// entities still reads, while the worst accepted input stays at a few hundred MiB of work at most.
package enum ArchiveLimits {
    /// Bytes of the (inflated) property list: 16 MiB, 526× the largest real one. Also what a store's
    /// `Z_MODELCACHE` may inflate to.
    package static let bytes = 16 << 20
    /// Objects in the property list's offset table: 1,000,000, 286× the largest real count.
    package static let objects = 1_000_000
    /// Nesting of arrays and dictionaries: 64 (real archives nest 4 deep; text property lists are
    /// parsed recursively by Foundation, one stack frame per level).
    package static let depth = 64
    /// References in one array, set or dictionary (entries): 200,000, 378× the largest real container.
    package static let containerReferences = 200_000
    /// Nodes the whole graph expands to, counting a shared object once per reference to it: 2,000,000,
    /// 269× the largest real graph. Sharing that multiplies (a container repeating one object, nested
    /// containers sharing each other) is what this counts.
    package static let totalReferences = 2_000_000
    /// Bytes of strings and data the graph expands to, a shared one counted per reference: 32 MiB,
    /// 741× the largest real figure.
    package static let expandedBytes = 32 << 20
    /// Archived values a reader of a keyed archive may follow (each reference followed counts, so an
    /// entity reached from a million entries counts a million times): 2,000,000, 400× the model
    /// reader's count on the largest real model.
    package static let decodedObjects = 2_000_000
}

/// One bound of ``ArchiveLimits`` that an input passed, with the figure found.
package struct ArchiveLimitPassed: Sendable, Hashable, CustomStringConvertible {
    /// Which bound.
    package enum Limit: String, Sendable, Hashable {
        case bytes, objects, depth, containerReferences, totalReferences, expandedBytes, decodedObjects
    }

    /// Which bound was passed.
    package let limit: Limit
    /// The figure found: exact, or (when counting stopped at the bound, as inflating and decoding do)
    /// the count when it stopped, always above ``maximum``.
    package let found: Int
    /// The bound.
    package let maximum: Int

    package init(_ limit: Limit, found: Int, maximum: Int) {
        self.limit = limit
        self.found = found
        self.maximum = maximum
    }

    package var description: String {
        let what =
            switch limit {
            case .bytes: "it is \(found) bytes long"
            case .objects: "it holds \(found) objects"
            case .depth: "it nests \(found) levels deep"
            case .containerReferences: "one container holds \(found) references"
            case .totalReferences: "its references expand to \(found) nodes (shared objects counted per reference)"
            case .expandedBytes: "its strings and data expand to \(found) bytes (shared ones counted per reference)"
            case .decodedObjects: "reading it follows \(found) archived values"
            }
        return "\(what), more than the \(maximum) a model can hold"
    }
}

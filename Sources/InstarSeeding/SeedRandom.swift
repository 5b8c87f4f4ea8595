@_spi(Layouts) import InstarStore

/// A counter-based random source: the value for (stream, index) is computed directly, never by
/// advancing a shared state.
///
/// Seeding must be deterministic for a seed and flat in memory, so no generator state is kept per row
/// or per column: each column of each entity is a *stream* (a 64-bit key derived from the seed and the
/// names), and row `i` of that stream is SplitMix64's finaliser applied to `key + i·γ`. The same
/// (seed, entity, property, row) always gives the same number, whatever order rows are written in.
/// `SystemRandomNumberGenerator` is never used.
package struct SeedRandom: Sendable, Hashable {
    package let seed: UInt64

    package init(seed: UInt64) {
        self.seed = seed
    }

    /// SplitMix64's increment (the golden ratio in 64 bits).
    static let gamma: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// The key of a named stream: FNV-1a over the names' UTF-8 bytes (Swift's `Hasher` is seeded per
    /// process, so it cannot give stable streams), mixed with the seed.
    package func stream(_ names: String...) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for name in names {
            for byte in name.utf8 {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01B3
            }
            hash ^= 0xFF  // separates ("ab", "c") from ("a", "bc")
            hash &*= 0x0000_0100_0000_01B3
        }
        return Self.mix(hash ^ Self.mix(seed &+ Self.gamma))
    }

    /// The `index`th 64-bit value of a stream.
    @inline(__always)
    package static func value(_ stream: UInt64, _ index: UInt64) -> UInt64 {
        mix(stream &+ (index &+ 1) &* gamma)
    }

    /// A value in `0..<bound` (bound > 0), by multiply-shift (no modulo bias worth mentioning here).
    @inline(__always)
    package static func below(_ bound: UInt64, _ stream: UInt64, _ index: UInt64) -> UInt64 {
        value(stream, index).multipliedFullWidth(by: bound).high
    }

    /// A value in `[0, 1)` with 53 random bits.
    @inline(__always)
    package static func unit(_ stream: UInt64, _ index: UInt64) -> Double {
        Double(value(stream, index) >> 11) * 0x1.0p-53
    }

    /// SplitMix64's output function.
    @inline(__always)
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

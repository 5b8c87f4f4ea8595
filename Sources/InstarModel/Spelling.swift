/// Spelling help for error messages: "did you mean 'X'?".
package enum Spelling {
    /// A hint naming the closest candidate, or nil when none is close enough to be a likely typo.
    package static func suggestion(for name: String, among candidates: [String]) -> String? {
        closest(to: name, among: candidates).map(didYouMean)
    }

    /// The words offering `candidate` in place of a misspelt name.
    package static func didYouMean(_ candidate: String) -> String {
        "did you mean '\(candidate)'?"
    }

    package static func closest(to name: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(name.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }),
            best.1 <= max(2, name.count / 3)
        else { return nil }
        return best.0
    }

    /// Levenshtein distance.
    package static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(
                    previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

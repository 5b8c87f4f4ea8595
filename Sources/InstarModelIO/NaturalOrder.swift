/// Orders names the way people number versions: "Foo" < "Foo 2" < "Foo 10".
///
/// An `.xcdatamodeld` bundle records no order of its versions; Xcode names new ones "Foo 2", "Foo 3", …
/// and people add their own schemes ("v2", "V10"). Plain string order would put "Foo 10" before
/// "Foo 2", so runs of digits are compared as numbers. Text runs compare case-insensitively first (as
/// Finder does), and exact ties are broken by plain code-point order so the order is total.
enum NaturalOrder {
    static func precedes(_ a: String, _ b: String) -> Bool {
        Key(a).precedes(Key(b))
    }

    /// `items` in the natural order of their names, each name split into runs once rather than in
    /// every comparison (a bundle of 90 versions is sorted in about 600 comparisons).
    static func sorted<T>(_ items: [T], byName name: (T) -> String) -> [T] {
        items.map { (item: $0, key: Key(name($0))) }.sorted { $0.key.precedes($1.key) }.map(\.item)
    }

    /// A name split into its runs, case-folded and as written.
    struct Key {
        let name: String
        let folded: [Chunk]
        let exact: [Chunk]

        init(_ name: String) {
            self.name = name
            folded = chunks(name.lowercased())
            exact = chunks(name)
        }

        func precedes(_ other: Key) -> Bool {
            switch compare(folded, other.folded) {
            case .less: return true
            case .greater: return false
            case .same:
                switch compare(exact, other.exact) {
                case .less: return true
                case .greater: return false
                case .same: return name.unicodeScalars.lexicographicallyPrecedes(other.name.unicodeScalars)
                }
            }
        }
    }

    private enum Outcome { case less, same, greater }

    private static func compare(_ left: [Chunk], _ right: [Chunk]) -> Outcome {
        for (x, y) in zip(left, right) {
            let outcome: Outcome
            switch (x, y) {
            case (.number(let m), .number(let n)): outcome = compareNumbers(m, n)
            case (.text(let s), .text(let t)):
                if s == t {
                    outcome = .same
                } else {
                    outcome = s.unicodeScalars.lexicographicallyPrecedes(t.unicodeScalars) ? .less : .greater
                }
            // A number sorts before text at the same position ("Foo 2" < "Foo X").
            case (.number, .text): outcome = .less
            case (.text, .number): outcome = .greater
            }
            if outcome != .same { return outcome }
        }
        // A prefix comes first: "Foo" < "Foo 2".
        return left.count == right.count ? .same : (left.count < right.count ? .less : .greater)
    }

    enum Chunk {
        case text(String)
        /// Digits without leading zeros, compared by length then digit by digit, so any length works.
        case number(String)
    }

    private static func chunks(_ s: String) -> [Chunk] {
        var result: [Chunk] = []
        var current = ""
        var inDigits = false
        func flush() {
            guard !current.isEmpty else { return }
            if inDigits {
                let trimmed = current.drop { $0 == "0" }
                result.append(.number(trimmed.isEmpty ? "0" : String(trimmed)))
            } else {
                result.append(.text(current))
            }
            current = ""
        }
        for character in s {
            let isDigit = character.isASCII && character.isNumber
            if isDigit != inDigits {
                flush()
                inDigits = isDigit
            }
            current.append(character)
        }
        flush()
        return result
    }

    private static func compareNumbers(_ m: String, _ n: String) -> Outcome {
        if m.count != n.count { return m.count < n.count ? .less : .greater }
        return m == n ? .same : (m < n ? .less : .greater)
    }
}

@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL

/// Built-in value conversions for synthesized hooks, as SQL over stored values: strings as text,
/// numbers as integers or reals, Booleans as 0/1, and dates and UUIDs in the layout's
/// ``ValueEncoding`` (ISO-8601 text or seconds since an epoch; text or 16 bytes), so that a conversion
/// written for a Core Data store produces seconds since 2001, not the Instar layout's text.
///
/// A conversion never fails: a value that does not convert becomes NULL, and ``Conversion/lossy``
/// says which values those are, so that the report can count them as a risk before anything runs.
package enum Converters {
    package struct Conversion: Sendable, Hashable {
        /// The SQL expression of the new value, over the old value.
        package var expression: String
        /// Which non-NULL old values become NULL; nil when every value converts.
        package var lossy: String?
    }

    /// Spaces, tabs, line feeds and carriage returns, as `trim`'s second argument.
    static let whitespace = "char(32, 9, 10, 13)"

    /// The conversion of `value` (an SQL expression, typically a quoted column) from `from` to `to`,
    /// or nil when there is no built-in one.
    package static func conversion(
        from: AttributeType, to: AttributeType, value: String, encoding: ValueEncoding = .instar
    ) -> Conversion? {
        let trimmed = "trim(\(value), \(whitespace))"
        // The trimmed text is an optional sign and then only `chars`, with at least one digit first.
        func only(_ chars: String) -> String {
            "(\(trimmed) GLOB '[\(chars)]*' OR \(trimmed) GLOB '[+-][\(chars)]*') AND substr(\(trimmed), 2) NOT GLOB '*[^\(chars)]*'"
        }
        let textLike: Set<AttributeType> = [.string, .uri, .uuid]
        switch (from, to) {
        case (.string, let t) where t.isInteger:
            let (low, high) = integerRange(t)
            return Conversion(
                expression:
                    "CASE WHEN \(only("0-9")) AND CAST(\(trimmed) AS REAL) BETWEEN \(low) AND \(high) THEN CAST(\(trimmed) AS INTEGER) END",
                lossy:
                    "text that is not a whole number (an optional sign and digits, spaces around allowed) or is outside the \(t.xcodeName) range")
        case (.string, .double), (.string, .float), (.string, .decimal):
            let cast = to == .decimal ? "NUMERIC" : "REAL"
            return Conversion(
                expression:
                    "CASE WHEN \(only("0-9.")) AND \(trimmed) GLOB '*[0-9]*' AND \(trimmed) NOT GLOB '*.*.*' THEN CAST(\(trimmed) AS \(cast)) END",
                lossy:
                    "text that is not a plain decimal number (an optional sign, digits and at most one point; no exponent, no thousands separators)")
        case (.string, .boolean):
            return Conversion(
                expression:
                    "CASE lower(\(trimmed)) WHEN 'yes' THEN 1 WHEN 'true' THEN 1 WHEN '1' THEN 1 WHEN 'no' THEN 0 WHEN 'false' THEN 0 WHEN '0' THEN 0 END",
                lossy: "text other than YES, true, 1, NO, false or 0 (any case)")
        case (.string, .date):
            return Conversion(
                expression:
                    "CASE WHEN \(trimmed) GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*' AND date(substr(\(trimmed), 1, 10), '+0 days') = substr(\(trimmed), 1, 10) THEN \(encoding.storedDate(fromISOText: trimmed)) END",
                lossy:
                    "text that is not an ISO-8601 date or date-time (YYYY-MM-DD, optionally followed by T or a space, HH:MM[:SS[.SSS]] and Z or ±HH:MM), or names a day that does not exist (2023-02-29)")
        case (let f, .string) where f.isNumeric:
            return Conversion(expression: "CAST(\(value) AS TEXT)", lossy: nil)
        case (.boolean, .string):
            return Conversion(
                expression: "CASE WHEN \(value) IS NULL THEN NULL WHEN \(value) <> 0 THEN 'true' ELSE 'false' END",
                lossy: nil)
        case (.date, .string):
            return Conversion(expression: encoding.isoText(ofStoredDate: value), lossy: nil)
        case (.uuid, .string), (.uuid, .uri):
            return Conversion(expression: encoding.text(ofStoredUUID: value), lossy: nil)
        case (let f, .uuid) where textLike.contains(f):
            let hex4 = String(repeating: "[0-9A-F]", count: 4)
            let pattern = [hex4 + hex4, hex4, hex4, hex4, hex4 + hex4 + hex4].joined(separator: "-")
            guard let stored = encoding.storedUUID(fromText: "upper(\(trimmed))") else { return nil }
            return Conversion(
                expression: "CASE WHEN upper(\(trimmed)) GLOB '\(pattern)' THEN \(stored) END",
                lossy: "text that is not a UUID (8-4-4-4-12 hexadecimal digits)")
        case (let f, .string), (let f, .uri):
            guard textLike.contains(f) else { return nil }
            return Conversion(expression: value, lossy: nil)
        case (.binary, .transformable), (.transformable, .binary):
            return Conversion(expression: value, lossy: nil)
        default:
            return nil
        }
    }

    /// A hint for the conversions Instar has no built-in for.
    package static func hint(
        from: AttributeType, to: AttributeType, value: String, encoding: ValueEncoding = .instar
    ) -> String? {
        switch (from, to, encoding.dates) {
        case (.date, let t, .isoText) where t.isNumeric:
            return "dates are ISO-8601 text here; seconds since 2001-01-01 UTC (Core Data's reference date) are \(ValueEncoding.coreData.storedDate(fromISOText: value)), since 1970 \(ValueEncoding.plainSQL.storedDate(fromISOText: value))"
        case (let f, .date, .isoText) where f.isNumeric:
            return "dates are ISO-8601 text here; from seconds since 2001-01-01 UTC: \(ValueEncoding.coreData.isoText(ofStoredDate: value))"
        case (.date, let t, .seconds) where t.isNumeric, (let t, .date, .seconds) where t.isNumeric:
            return "dates are stored as seconds here (\(encoding.dates == .seconds(since: .unix) ? "since 1970" : "since 2001-01-01 UTC")): convert between the units your number uses and these"
        case (let f, .uuid, _) where f == .string || f == .uri:
            return "UUIDs are 16 bytes here; SQLite before 3.41 has no unhex(): convert the text in a Swift hook"
        default:
            return nil
        }
    }

    static func integerRange(_ type: AttributeType) -> (String, String) {
        switch type {
        case .integer16: ("-32768", "32767")
        case .integer32: ("-2147483648", "2147483647")
        default: ("-9223372036854775808", "9223372036854775807")
        }
    }
}

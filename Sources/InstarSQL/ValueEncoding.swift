/// How a layout stores the attribute types that layouts store differently: dates and UUIDs.
///
/// Everything that writes or converts values (seeding, the planner's type-change conversions, mapping
/// constants) asks the layout's encoding instead of assuming one, so a conversion written for one
/// layout is never run on another's values. Numbers, Booleans (0/1), strings and binary data are
/// stored alike by every layout.
@_spi(Layouts) public struct ValueEncoding: Sendable, Hashable {
    /// How dates are stored.
    @_spi(Layouts) public enum Dates: Sendable, Hashable {
        /// ISO-8601 text in UTC with milliseconds (`2001-01-01T00:00:00.000Z`): the Instar layout.
        case isoText
        /// A real number of seconds since `epoch`.
        case seconds(since: Epoch)
    }

    /// The zero of a seconds-based date encoding.
    @_spi(Layouts) public enum Epoch: Sendable, Hashable {
        /// 2001-01-01 00:00:00 UTC, Core Data's (and Foundation's) reference date.
        case referenceDate
        /// 1970-01-01 00:00:00 UTC.
        case unix

        /// Seconds from the reference date to this epoch's zero (1970 is 978 307 200 s earlier).
        @_spi(Layouts) public var offsetFromReferenceDate: Double {
            switch self {
            case .referenceDate: 0
            case .unix: 978_307_200
            }
        }

        /// The Julian day number of this epoch's zero, for SQLite's `julianday`.
        var julianDay: String {
            switch self {
            case .referenceDate: "2451910.5"
            case .unix: "2440587.5"
            }
        }
    }

    /// How UUIDs are stored.
    @_spi(Layouts) public enum UUIDs: Sendable, Hashable {
        /// `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX` text.
        case text
        /// 16 raw bytes (Core Data).
        case bytes
    }

    /// How this layout stores dates.
    @_spi(Layouts) public var dates: Dates
    /// How this layout stores UUIDs.
    @_spi(Layouts) public var uuids: UUIDs

    /// An encoding; layouts use one of ``instar``, ``coreData`` or ``plainSQL``.
    @_spi(Layouts) public init(dates: Dates, uuids: UUIDs) {
        self.dates = dates
        self.uuids = uuids
    }

    /// The Instar layout: ISO-8601 text dates, text UUIDs.
    @_spi(Layouts) public static let instar = ValueEncoding(dates: .isoText, uuids: .text)
    /// Core Data: seconds since 2001 and 16-byte UUIDs.
    @_spi(Layouts) public static let coreData = ValueEncoding(dates: .seconds(since: .referenceDate), uuids: .bytes)
    /// The plain SQL layout: seconds since 1970 and text UUIDs.
    @_spi(Layouts) public static let plainSQL = ValueEncoding(dates: .seconds(since: .unix), uuids: .text)

    /// A date given as seconds since the reference date, as a value of this encoding's kind: a
    /// number (`.real`) or ISO text (`.text`). Bound as a statement argument by the caller.
    @_spi(Layouts) public func storedDate(secondsSinceReferenceDate seconds: Double) -> StoredScalar {
        switch dates {
        case .isoText: .text(ISODateText.text(secondsSinceReferenceDate: seconds))
        case .seconds(let epoch): .real(seconds + epoch.offsetFromReferenceDate)
        }
    }

    /// The same for a whole number of milliseconds (seeding's dates: exact, no floating-point detour
    /// on the ISO-text path).
    package func storedDate(millisecondsSinceReferenceDate ms: Int64) -> StoredScalar {
        switch dates {
        case .isoText: .text(ISODateText.text(millisecondsSinceReferenceDate: ms))
        case .seconds(let epoch): .real(Double(ms) / 1000 + epoch.offsetFromReferenceDate)
        }
    }

    /// SQL turning validated ISO-8601 text (the expression `text`) into a stored date.
    @_spi(Layouts) public func storedDate(fromISOText text: String) -> String {
        switch dates {
        case .isoText: "strftime('%Y-%m-%dT%H:%M:%fZ', \(text))"
        case .seconds(let epoch): "round((julianday(\(text)) - \(epoch.julianDay)) * 86400, 3)"
        }
    }

    /// SQL turning a stored date (the expression `value`) into ISO-8601 text in UTC.
    @_spi(Layouts) public func isoText(ofStoredDate value: String) -> String {
        switch dates {
        case .isoText: value
        case .seconds(let epoch):
            "strftime('%Y-%m-%dT%H:%M:%fZ', \(value) + \(Int(Epoch.unix.offsetFromReferenceDate - epoch.offsetFromReferenceDate)), 'unixepoch')"
        }
    }

    /// SQL for the current moment as a stored date.
    @_spi(Layouts) public var now: String {
        switch dates {
        case .isoText: "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
        case .seconds(let epoch): "((julianday('now') - \(epoch.julianDay)) * 86400.0)"
        }
    }

    /// SQL turning a stored UUID (the expression `value`) into upper-case dashed text.
    @_spi(Layouts) public func text(ofStoredUUID value: String) -> String {
        switch uuids {
        case .text: value
        case .bytes:
            "CASE WHEN \(value) IS NULL THEN NULL ELSE upper(substr(hex(\(value)), 1, 8) || '-' || substr(hex(\(value)), 9, 4) || '-' || substr(hex(\(value)), 13, 4) || '-' || substr(hex(\(value)), 17, 4) || '-' || substr(hex(\(value)), 21, 12)) END"
        }
    }

    /// SQL turning validated upper-case UUID text into a stored UUID, or nil when SQLite cannot (raw
    /// bytes need `unhex`, which SQLite has only since 3.41).
    @_spi(Layouts) public func storedUUID(fromText text: String) -> String? {
        switch uuids {
        case .text: text
        case .bytes: nil
        }
    }
}

/// A value in its stored form, before it is bound: what ``ValueEncoding`` produces for constants.
@_spi(Layouts) public enum StoredScalar: Sendable, Hashable {
    case real(Double)
    case text(String)
}

/// ISO-8601 text of a date in UTC with milliseconds, computed with integer calendar arithmetic (no
/// formatter: the same text on every platform, and cheap enough for millions of rows).
package enum ISODateText {
    /// `2001-01-01T00:00:00.000Z` for 0.
    package static func text(secondsSinceReferenceDate seconds: Double) -> String {
        text(millisecondsSinceReferenceDate: Int64((seconds * 1000).rounded()))
    }

    /// The same for a whole number of milliseconds since 2001-01-01 UTC.
    package static func text(millisecondsSinceReferenceDate ms: Int64) -> String {
        // Days since 1970-01-01, then civil-from-days (Howard Hinnant's public-domain algorithm).
        let unixMilliseconds = ms + Int64(ValueEncoding.Epoch.unix.offsetFromReferenceDate) * 1000
        var days = unixMilliseconds / 86_400_000
        var rest = unixMilliseconds % 86_400_000
        if rest < 0 {
            rest += 86_400_000
            days -= 1
        }
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        let hours = rest / 3_600_000, minutes = rest / 60_000 % 60, secs = rest / 1000 % 60, millis = rest % 1000
        func pad(_ v: Int64, _ width: Int) -> String {
            let digits = String(abs(v))
            return (v < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(secs, 2)).\(pad(millis, 3))Z"
    }
}

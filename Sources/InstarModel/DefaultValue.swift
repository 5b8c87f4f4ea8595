/// Interpretation of the textual default values that models carry (`defaultValueString`).
///
/// Core Data keeps defaults as strings in the model file; Instar does the same and interprets them
/// per attribute type only when it needs a typed value (validation, SQL defaults).
public enum DefaultValue {
    /// A typed reading of a default value.
    package enum Typed: Sendable, Hashable {
        /// An integer type's value; `YES`/`NO` read as 1/0.
        case integer(Int64)
        /// A floating-point, decimal or date value (a date's default is written as a number of seconds).
        case real(Double)
        /// A string or URI value, verbatim.
        case text(String)
        /// A Boolean value.
        case boolean(Bool)
    }

    /// Why `value` cannot be a default for `type`, or nil when it can.
    package static func problem(with value: String, for type: AttributeType) -> String? {
        switch type {
        case .integer16, .integer32, .integer64:
            guard let number = Int64(value.trimmingSpaces) else { return "expected a whole number" }
            let range: ClosedRange<Int64> =
                switch type {
                case .integer16: Int64(Int16.min)...Int64(Int16.max)
                case .integer32: Int64(Int32.min)...Int64(Int32.max)
                default: Int64.min...Int64.max
                }
            return range.contains(number) ? nil : "out of range for \(type.xcodeName)"
        case .double, .float, .decimal, .date:
            return Double(value.trimmingSpaces) == nil ? "expected a number" : nil
        case .boolean:
            return parseBoolean(value) == nil ? "expected YES, NO, true, false, 1 or 0" : nil
        default:
            return nil
        }
    }

    /// The typed value of a default, or nil when it does not parse.
    package static func typed(_ value: String, for type: AttributeType) -> Typed? {
        switch type {
        case .integer16, .integer32, .integer64:
            // Xcode models sometimes carry "YES"/"NO" on numbers; read them as 1/0, like a Boolean.
            return Int64(value.trimmingSpaces).map(Typed.integer)
                ?? parseBoolean(value).map { Typed.integer($0 ? 1 : 0) }
        case .double, .float, .decimal, .date:
            return Double(value.trimmingSpaces).map(Typed.real)
                ?? parseBoolean(value).map { Typed.real($0 ? 1 : 0) }
        case .boolean:
            return parseBoolean(value).map(Typed.boolean)
        case .string, .uri:
            return .text(value)
        default:
            return nil
        }
    }

    /// Reads the Boolean spellings models use (`YES`/`NO`, `true`/`false`, `1`/`0`, any case, spaces
    /// ignored); nil for anything else. Also reads `userInfo` flags such as `NSMigrationAllowTypeTransformation`.
    package static func parseBoolean(_ value: String) -> Bool? {
        switch value.trimmingSpaces.lowercased() {
        case "yes", "true", "1": true
        case "no", "false", "0": false
        default: nil
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first?.isWhitespace == true { s.removeFirst() }
        while s.last?.isWhitespace == true { s.removeLast() }
        return String(s)
    }
}

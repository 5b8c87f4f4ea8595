import Foundation
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
import InstarRuntime
import InstarSeeding
@_spi(Layouts) import InstarLayouts

/// Whether a value read after the migration is the value read before it, as the app sees it.
///
/// Strict on purpose: a conversion a step performs (Double → Integer truncating the fraction, a number
/// turned into a Boolean, an Integer 64 kept as is in an Integer 16 column it does not fit) changes what
/// the app reads, so it counts as a difference, with the reason. Only representations that read back as
/// the same value are equal: an integer and a real of the same value, and a blob with or without the
/// inline tag a layout puts before external-storage bytes; and a NULL that became the default of an
/// attribute made required (the step says it replaces NULLs so).
enum ValueEquivalence {
    /// How two values differ: by a ``ValueMismatch``, or simply (nil).
    struct Difference {
        var mismatch: ValueMismatch?
    }

    /// nil when `after` is `before`; else how they differ.
    static func difference(
        _ before: SQLValue, _ after: SQLValue, from: Attribute?, to: Attribute?, layout: any StoreLayout
    ) -> Difference? {
        if let mismatch = fit(after, in: to, changed: from?.type != to?.type) { return Difference(mismatch: mismatch) }
        // An optional attribute made required with a default: NULLs become the default (the step says so).
        if before == .null, from?.isOptional == true, let to, !to.isOptional, let stored = layout.storedDefault(of: to),
            difference(stored, after, from: to, to: to, layout: layout) == nil
        {
            return nil
        }
        switch (before, after) {
        case (.null, .null): return nil
        case (.integer(let a), .integer(let b)): return a == b ? nil : Difference()
        case (.real(let a), .real(let b)): return a == b || (a.isNaN && b.isNaN) ? nil : Difference()
        case (.integer(let a), .real(let b)), (.real(let b), .integer(let a)):
            return Double(exactly: a) == b ? nil : Difference(mismatch: b.rounded(.towardZero) == b ? nil : .fractionLostOrAdded)
        case (.text(let a), .text(let b)): return a == b ? nil : Difference()
        case (.blob(let a), .blob(let b)):
            return strip(a, from, layout) == strip(b, to, layout) ? nil : Difference()
        case (.text(let a), .blob(let b)), (.blob(let b), .text(let a)):
            return Data(a.utf8) == b ? nil : Difference()
        default:
            return Difference()
        }
    }

    /// Why `value` cannot be read as the attribute's type after a type change (a narrowing Core Data
    /// would truncate when it reads the row), or nil.
    static func fit(_ value: SQLValue, in attribute: Attribute?, changed: Bool) -> ValueMismatch? {
        guard changed, let attribute else { return nil }
        let range: ClosedRange<Int64>? =
            switch attribute.type {
            case .integer16: Int64(Int16.min)...Int64(Int16.max)
            case .integer32: Int64(Int32.min)...Int64(Int32.max)
            case .boolean: 0...1
            default: nil
            }
        guard let range else { return nil }
        switch value {
        case .integer(let v) where !range.contains(v):
            return .doesNotFit(attribute.type)
        case .real(let v) where v.rounded(.towardZero) != v || !(Double(range.lowerBound)...Double(range.upperBound)).contains(v):
            return .notOfType(attribute.type)
        case .text, .blob:
            return .notOfType(attribute.type)
        default:
            return nil
        }
    }

    /// The bytes without the inline tag the layout writes before them for this attribute.
    private static func strip(_ data: Data, _ attribute: Attribute?, _ layout: any StoreLayout) -> Data {
        guard let attribute else { return data }
        let prefix = SeedEncoding.blobPrefix(of: attribute, layout: layout)
        guard !prefix.isEmpty, data.starts(with: prefix) else { return data }
        return data.dropFirst(prefix.count)
    }

    /// A value as an SQL literal for reports, long text and blobs cut short.
    static func render(_ value: SQLValue) -> String {
        switch value {
        case .text(let s) where s.count > 60: return SQLValue.text(String(s.prefix(57)) + "…").literal
        case .blob(let d) where d.count > 32: return SQLValue.blob(d.prefix(32)).literal + "… (\(d.count) bytes)"
        default: return value.literal
        }
    }
}

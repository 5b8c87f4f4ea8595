/// Instar's own namespace in a store: the journal, the lease, a layout's metadata, the tables and
/// triggers of a sliced rewrite in progress. Every name Instar gives such an object starts with
/// ``prefix``; schema checks and the store's own views and triggers never count them.
package enum InstarObjects {
    /// The prefix of every name in Instar's namespace.
    package static let prefix = "_instar_"

    /// Whether `name` is in Instar's namespace.
    package static func contains(_ name: String) -> Bool { name.hasPrefix(prefix) }
}

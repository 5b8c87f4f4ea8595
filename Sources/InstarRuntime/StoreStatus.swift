import Foundation

/// What `instar status` reports on a store: its latest run's journal (the unfinished one first) and
/// who holds the store, with the judgement whether that holder still runs made once, when the status
/// is read, so that the text and the JSON of one call agree.
package struct StoreStatus: Sendable, Equatable {
    /// The store's path, as given.
    package var store: String
    /// The unfinished run, else the last; nil when no migration has run on the store.
    package var journal: JournalEntry?
    /// The lease on the store, when a run holds (or held and left) one.
    package var lease: Lease?
    /// Whether the lease's owner still ran when the status was read (if not, the next migrate takes
    /// over); false without a lease.
    package var leaseIsAlive: Bool

    /// The status of a store read now: ``Lease/isAlive`` is asked once, here.
    package init(store: String, journal: JournalEntry?, lease: Lease?) {
        self.store = store
        self.journal = journal
        self.lease = lease
        leaseIsAlive = lease?.isAlive ?? false
    }

    /// True when the journal's run has not finished (paused, failed or interrupted): `instar status`
    /// exits 1.
    package var unfinished: Bool { journal.map { $0.status != .finished } ?? false }
}

/// `instar status --format json`, written with ``Journal/encoder`` (ISO 8601 dates, as the journal
/// keeps them): the store, whether a run is unfinished, the journal, and the lease as its owner, pid,
/// host and whether it is alive.
///
/// Encodable only: the lease is written as what a script needs to know, without when it was taken,
/// its heartbeat or its run's token, which decide whether it is alive; a status read back from JSON
/// could not judge that again, so there is none. A test reads the output's `journal` as a
/// ``JournalEntry``.
extension StoreStatus: Encodable {
    private enum CodingKeys: String, CodingKey {
        case store, unfinished, journal, lease
    }

    private enum LeaseKeys: String, CodingKey {
        case owner, pid, host, alive
    }

    /// Writes the store, `unfinished`, the journal and the lease when there are some.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(store, forKey: .store)
        try c.encode(unfinished, forKey: .unfinished)
        try c.encodeIfPresent(journal, forKey: .journal)
        if let lease {
            var holder = c.nestedContainer(keyedBy: LeaseKeys.self, forKey: .lease)
            try holder.encode(lease.owner, forKey: .owner)
            try holder.encode(lease.pid, forKey: .pid)
            try holder.encode(lease.host, forKey: .host)
            try holder.encode(leaseIsAlive, forKey: .alive)
        }
    }
}

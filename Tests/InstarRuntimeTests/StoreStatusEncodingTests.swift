import Foundation
@_spi(Layouts) import Instar
import Testing
@testable import InstarRuntime

/// `instar status --format json`: the status the library reads, the lease as its owner and whether it
/// is alive, judged once when the status is read.
@Suite struct StoreStatusEncodingTests {
    func object(_ status: StoreStatus) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Journal.encoder.encode(status)) as? [String: Any])
    }

    @Test func aStoreNoRunTouchedHasNoJournalNorLease() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let status = StoreStatus(store: "s.sqlite", journal: nil, lease: nil)
        #expect(String(decoding: try encoder.encode(status), as: UTF8.self) == #"{"store":"s.sqlite","unfinished":false}"#)
    }

    @Test func aLeaseIsWrittenAsItsOwnerAndWhetherItLives() throws {
        let lease = Lease.mine()
        let status = StoreStatus(store: "s.sqlite", journal: nil, lease: lease)
        let written = try #require(try object(status)["lease"] as? [String: Any])
        #expect(written.keys.sorted() == ["alive", "host", "owner", "pid"])
        #expect(written["owner"] as? String == lease.owner && written["pid"] as? Int == Int(lease.pid))
        #expect(written["alive"] as? Bool == status.leaseIsAlive && !status.leaseIsAlive, "no run of this process holds it")
    }
}

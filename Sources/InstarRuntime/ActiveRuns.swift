import Foundation

/// The runs of this process, at most one per store file.
///
/// An app may call `migrate` twice for one store (a SwiftUI `.task` re-created, two scenes, a
/// background task and a launch): the lease in the store cannot tell two runs of one process apart by
/// pid, and both would work on the same journal. So a run registers the store's file identity here
/// first; a second run of the same store waits until the first has ended — then it usually finds
/// nothing left to do — honouring its own cancellation and time budget while it waits.
final class ActiveRuns: @unchecked Sendable {
    static let shared = ActiveRuns()

    private let condition = NSCondition()
    private var running: [StoreIdentity: String] = [:]

    /// Whether a run holding `token` is running in this process now.
    func isRunning(_ token: String) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return running.values.contains(token)
    }

    /// Waits until no run of this process works on `store`, then registers `token` for it. Returns
    /// false, registering nothing, as soon as `stopWaiting` answers true.
    func enter(_ store: StoreIdentity, token: String, stopWaiting: () -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while running[store] != nil {
            if stopWaiting() { return false }
            _ = condition.wait(until: Date().addingTimeInterval(0.02))
        }
        running[store] = token
        return true
    }

    func leave(_ store: StoreIdentity, token: String) {
        condition.lock()
        if running[store] == token { running[store] = nil }
        condition.broadcast()
        condition.unlock()
    }
}

/// A store file's identity: device and inode, so that two paths to one file (a symbolic link, a
/// relative path) are the same store; the standardized path where the file cannot be examined.
struct StoreIdentity: Hashable {
    var device: UInt64
    var inode: UInt64
    var path: String

    init(path: String) {
        var info = stat()
        if stat(path, &info) == 0 {
            device = UInt64(truncatingIfNeeded: info.st_dev)
            inode = UInt64(truncatingIfNeeded: info.st_ino)
            self.path = ""
        } else {
            device = 0
            inode = 0
            self.path = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        }
    }
}

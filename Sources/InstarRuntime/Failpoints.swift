import Foundation
@_spi(Layouts) import InstarModel

/// Named places where a test can kill the process, to prove that a killed migration resumes exactly.
///
/// Inert unless the environment asks: `INSTAR_FAILPOINT=name` kills at the first hit of `name`,
/// `name@3` at its third hit, `*@17` at the 17th hit of any failpoint. `INSTAR_FAILPOINT_TRACE=file`
/// appends every hit's name to the file, so a script can enumerate all crash points of a run. The kill
/// is SIGKILL: no handler, no cleanup, exactly like the app being killed by the system.
///
/// Compiled only into debug builds (the tests and `Scripts/crash-matrix` use them): in a release build
/// ``hit(_:)`` is empty and the environment is never read, so no app ships a way to kill itself.
package enum Failpoints {
    #if DEBUG
    private static let configuration: (name: String, count: Int)? = {
        guard let spec = ProcessInfo.processInfo.environment["INSTAR_FAILPOINT"], !spec.isEmpty else { return nil }
        let parts = spec.split(separator: "@", maxSplits: 1)
        return (String(parts[0]), parts.count > 1 ? Int(parts[1]) ?? 1 : 1)
    }()
    private static let tracePath = ProcessInfo.processInfo.environment["INSTAR_FAILPOINT_TRACE"]
    private static let state = FailpointState()

    /// True when any failpoint setting is present (the fast path checks only this).
    package static let isActive = configuration != nil || tracePath != nil
    #else
    package static let isActive = false
    #endif

    @inline(__always)
    package static func hit(_ name: String) {
        #if DEBUG
        guard isActive else { return }
        state.hit(name, configuration: configuration, tracePath: tracePath)
        #endif
    }
}

#if DEBUG
private final class FailpointState: Sendable {
    private let counts = Locked<(hits: [String: Int], total: Int)>(([:], 0))

    func hit(_ name: String, configuration: (name: String, count: Int)?, tracePath: String?) {
        // Under the lock throughout: concurrent hits are traced and counted one at a time.
        counts.withLock { counts in hit(name, configuration: configuration, tracePath: tracePath, counts: &counts) }
    }

    private func hit(
        _ name: String, configuration: (name: String, count: Int)?, tracePath: String?,
        counts: inout (hits: [String: Int], total: Int)
    ) {
        counts.hits[name, default: 0] += 1
        counts.total += 1
        let (hits, total) = counts
        if let tracePath, let handle = FileHandle(forWritingAtPath: tracePath) ?? create(tracePath) {
            handle.seekToEndOfFile()
            handle.write(Data((name + "\n").utf8))
            try? handle.close()
        }
        guard let configuration else { return }
        let count = configuration.name == "*" ? total : (configuration.name == name ? hits[name]! : 0)
        if count == configuration.count {
            kill(getpid(), SIGKILL)
        }
    }

    private func create(_ path: String) -> FileHandle? {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return FileHandle(forWritingAtPath: path)
    }
}
#endif

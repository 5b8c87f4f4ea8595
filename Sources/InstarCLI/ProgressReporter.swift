import ArgumentParser
import Foundation
import Instar

enum ProgressStyle: String, ExpressibleByArgument, CaseIterable {
    case bar, lines, json, none
}

/// Shows progress: a bar per step on a terminal, plain lines in logs, JSON lines for programs.
final class ProgressReporter: @unchecked Sendable {
    let style: ProgressStyle
    private let lock = NSLock()
    private var step = ""
    private var stepStart = Date()
    private var barShown = false

    init(style: ProgressStyle) {
        self.style = style
    }

    func report(_ event: ProgressEvent) {
        lock.lock()
        defer { lock.unlock() }
        switch style {
        case .none: return
        case .json: printOut(jsonText(Self.json(event)).replacingOccurrences(of: "\n", with: "").replacingOccurrences(of: "  ", with: ""))
        case .lines: if let line = Self.line(event) { printOut(line) }
        case .bar: bar(event)
        }
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if barShown { FileHandle.standardOutput.write(Data("\n".utf8)) }
        barShown = false
    }

    private func bar(_ event: ProgressEvent) {
        switch event {
        case .stepStarted(let i, let n, let from, let to, _, _):
            if barShown { FileHandle.standardOutput.write(Data("\n".utf8)) }
            step = "step \(i + 1)/\(n) \(from) → \(to)"
            stepStart = Date()
            draw(fraction: 0, detail: "")
        case .hook(let name, let done, let total):
            let fraction = total.map { $0 > 0 ? Double(done) / Double($0) : 1 } ?? 0
            let elapsed = Date().timeIntervalSince(stepStart)
            let eta = fraction > 0 && fraction < 1 ? String(format: " ETA %.0fs", elapsed / fraction - elapsed) : ""
            draw(fraction: fraction, detail: "\(name) \(done)\(total.map { "/\($0)" } ?? "")\(eta)")
        case .stepFinished(_, _, let seconds):
            draw(fraction: 1, detail: String(format: "done in %.2fs", seconds))
        default:
            if let line = Self.line(event) {
                if barShown { FileHandle.standardOutput.write(Data("\n".utf8)) }
                barShown = false
                printOut(line)
            }
        }
    }

    /// `fraction` comes from hooks' own reports (a command's `instar:progress 15/10` or `-3/10`, a
    /// Swift hook's estimate), so it is clamped to 0...1: the bar must never trap on what a hook says.
    private func draw(fraction: Double, detail: String) {
        let width = 24
        let shown = fraction.isFinite ? min(1, max(0, fraction)) : 0
        let filled = Int((shown * Double(width)).rounded(.down))
        let text = "\r\(step) [\(String(repeating: "#", count: filled))\(String(repeating: ".", count: width - filled))] \(detail)\u{1B}[K"
        FileHandle.standardOutput.write(Data(text.utf8))
        barShown = true
    }

    static func line(_ event: ProgressEvent) -> String? {
        switch event {
        case .started(let run, let steps, let resumedAt):
            return resumedAt.map { "resuming \($0) (run \(run.prefix(8)))" } ?? "migrating: \(steps) step(s) (run \(run.prefix(8)))"
        case .stepStarted(let i, let n, let from, let to, let kind, _):
            return "step \(i + 1)/\(n): \(from) → \(to) (\(kind.rawValue))"
        case .hook(let name, let done, let total):
            return "  \(name): \(done)\(total.map { "/\($0)" } ?? "")"
        case .stepFinished(let i, let n, let seconds):
            return String(format: "step %d/%d done in %.2f s", i + 1, n, seconds)
        case .paused(let reason):
            return "paused: \(reason)"
        case .finished(let steps, let seconds):
            return String(format: "finished: %d step(s) in %.2f s", steps, seconds)
        }
    }

    static func json(_ event: ProgressEvent) -> [String: Any] {
        switch event {
        case .started(let run, let steps, let resumedAt):
            var o: [String: Any] = ["event": "started", "run": run, "steps": steps]
            if let resumedAt { o["resumedAt"] = resumedAt }
            return o
        case .stepStarted(let i, let n, let from, let to, let kind, let rows):
            return ["event": "stepStarted", "step": i + 1, "of": n, "from": from, "to": to, "kind": kind.rawValue, "estimatedRows": rows]
        case .hook(let name, let done, let total):
            var o: [String: Any] = ["event": "hook", "hook": name, "done": done]
            if let total { o["total"] = total }
            return o
        case .stepFinished(let i, let n, let seconds):
            return ["event": "stepFinished", "step": i + 1, "of": n, "seconds": seconds]
        case .paused(let reason):
            return ["event": "paused", "reason": reason.description]
        case .finished(let steps, let seconds):
            return ["event": "finished", "steps": steps, "seconds": seconds]
        }
    }
}

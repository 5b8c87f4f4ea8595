import ArgumentParser
import Foundation
@_spi(Layouts) import Instar

enum ProgressStyle: String, ExpressibleByArgument, CaseIterable {
    case bar, lines, json, none
}

/// Shows progress: a bar per step on a terminal, plain lines in logs, JSON lines for programs.
final class ProgressReporter: Sendable {
    let style: ProgressStyle
    /// The console of the command that made the reporter: events may come from other threads.
    private let console = Console.current
    /// The bar being drawn; events come from the run's thread and from hooks', one at a time.
    private let bar = Locked(Bar())

    private struct Bar {
        var step = ""
        var stepStart = Date()
        var shown = false
    }

    init(style: ProgressStyle) {
        self.style = style
    }

    func report(_ event: ProgressEvent) {
        bar.withLock { bar in
            switch style {
            case .none: return
            case .json:
                console.writeOut(Self.jsonLine(event) + "\n")
            case .lines: if let line = Self.line(event) { console.writeOut(line + "\n") }
            case .bar: Self.draw(event, on: &bar, console: console)
            }
        }
    }

    func finish() {
        bar.withLock { bar in
            if bar.shown { console.writeOut("\n") }
            bar.shown = false
        }
    }

    private static func draw(_ event: ProgressEvent, on bar: inout Bar, console: Console) {
        switch event {
        case .stepStarted(let i, let n, let from, let to, _, _):
            if bar.shown { console.writeOut("\n") }
            bar.step = "step \(i + 1)/\(n) \(from) → \(to)"
            bar.stepStart = Date()
            drawBar(&bar, fraction: 0, detail: "", console: console)
        case .hook(let name, let done, let total):
            let fraction = total.map { $0 > 0 ? Double(done) / Double($0) : 1 } ?? 0
            let elapsed = Date().timeIntervalSince(bar.stepStart)
            let eta = fraction > 0 && fraction < 1 ? String(format: " ETA %.0fs", elapsed / fraction - elapsed) : ""
            drawBar(&bar, fraction: fraction, detail: "\(name) \(done)\(total.map { "/\($0)" } ?? "")\(eta)", console: console)
        case .slice(let table, let copied, let total, let left):
            let fraction = total > 0 ? Double(copied) / Double(total) : 1
            let eta = left.map { String(format: " ETA %.0fs", $0) } ?? ""
            drawBar(&bar, fraction: fraction, detail: "\(table) \(copied)/\(total) rows\(eta)", console: console)
        case .stepFinished(_, _, let seconds):
            drawBar(&bar, fraction: 1, detail: String(format: "done in %.2fs", seconds), console: console)
        default:
            if let line = Self.line(event) {
                if bar.shown { console.writeOut("\n") }
                bar.shown = false
                console.writeOut(line + "\n")
            }
        }
    }

    /// `fraction` comes from hooks' own reports (a command's `instar:progress 15/10` or `-3/10`, a
    /// Swift hook's estimate), so it is clamped to 0...1: the bar must never trap on what a hook says.
    private static func drawBar(_ bar: inout Bar, fraction: Double, detail: String, console: Console) {
        let width = 24
        let shown = fraction.isFinite ? min(1, max(0, fraction)) : 0
        let filled = Int((shown * Double(width)).rounded(.down))
        let text = "\r\(bar.step) [\(String(repeating: "#", count: filled))\(String(repeating: ".", count: width - filled))] \(detail)\u{1B}[K"
        console.writeOut(text)
        bar.shown = true
    }

    static func line(_ event: ProgressEvent) -> String? {
        switch event {
        case .started(let run, let steps, let resumedAt):
            return resumedAt.map { "resuming \($0) (run \(run.prefix(8)))" } ?? "migrating: \(steps) step(s) (run \(run.prefix(8)))"
        case .stepStarted(let i, let n, let from, let to, let kind, _):
            return "step \(i + 1)/\(n): \(from) → \(to) (\(kind.rawValue))"
        case .hook(let name, let done, let total):
            return "  \(name): \(done)\(total.map { "/\($0)" } ?? "")"
        case .slice(let table, let copied, let total, let left):
            return "  copied \(copied)/\(total) rows ahead (last into \(table))" + (left.map { String(format: ", about %.1f s left", $0) } ?? "")
        case .reclaiming(let rows, let pages):
            guard rows > 0 || (pages ?? 0) > 0 else { return "  old tables deleted, their space given back" }
            return "  giving back the old tables' space: " + (rows > 0 ? "at most \(rows) rows" : "\(pages ?? 0) free pages") + " left"
        case .stepFinished(let i, let n, let seconds):
            return String(format: "step %d/%d done in %.2f s", i + 1, n, seconds)
        case .paused(let reason):
            return "paused: \(reason)"
        case .finished(let steps, let seconds):
            return String(format: "finished: %d step(s) in %.2f s", steps, seconds)
        }
    }

    /// The event as one line of JSON, `{"event" : "stepStarted","from" : "V1",…}`: the pretty-printed
    /// object with each line's indentation dropped (strings never span lines: JSON escapes newlines).
    static func jsonLine(_ event: ProgressEvent) -> String {
        jsonText(event).split(separator: "\n")
            .map { $0.drop(while: { $0 == " " }) }.joined()
    }
}

/// One line of `migrate --progress json`: the event's name in `event` and its values under flat keys,
/// the same keys across events wherever they mean the same thing (`step` and `of`, `from` and `to`,
/// `seconds`); keys of other events are absent. Steps are written 1-based, as people count them.
extension ProgressEvent: Codable {
    private enum CodingKeys: String, CodingKey {
        case event, run, steps, resumedAt, step, of, from, to, kind, estimatedRows, hook, done, total, table, copied,
            secondsLeft, rowsLeft, freePagesLeft, seconds, reason
    }

    /// Reads an event written by ``encode(to:)``, by its `event` name.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func value<T: Decodable>(_ key: CodingKeys) throws -> T { try c.decode(T.self, forKey: key) }
        func optional<T: Decodable>(_ key: CodingKeys) throws -> T? { try c.decodeIfPresent(T.self, forKey: key) }
        switch try c.decode(String.self, forKey: .event) {
        case "started": self = .started(run: try value(.run), steps: try value(.steps), resumedAt: try optional(.resumedAt))
        case "stepStarted":
            self = .stepStarted(
                index: try value(.step) - 1, of: try value(.of), from: try value(.from), to: try value(.to), kind: try value(.kind),
                estimatedRows: try value(.estimatedRows))
        case "hook": self = .hook(name: try value(.hook), done: try value(.done), total: try optional(.total))
        case "slice":
            self = .slice(table: try value(.table), copied: try value(.copied), of: try value(.of), secondsLeft: try optional(.secondsLeft))
        case "reclaiming": self = .reclaiming(rowsLeft: try value(.rowsLeft), freePagesLeft: try optional(.freePagesLeft))
        case "stepFinished": self = .stepFinished(index: try value(.step) - 1, of: try value(.of), seconds: try value(.seconds))
        case "paused":
            // Written as the reason's sentence (what a log shows), so read back through it.
            let sentence: String = try value(.reason)
            guard let reason = PauseReason.allCases.first(where: { $0.description == sentence }) else {
                throw DecodingError.dataCorruptedError(forKey: .reason, in: c, debugDescription: "unknown pause reason '\(sentence)'")
            }
            self = .paused(reason: reason)
        case "finished": self = .finished(steps: try value(.steps), seconds: try value(.seconds))
        case let name:
            throw DecodingError.dataCorruptedError(forKey: .event, in: c, debugDescription: "unknown progress event '\(name)'")
        }
    }

    /// Writes the event's name and its values; a pause as its reason's sentence.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .started(let run, let steps, let resumedAt):
            try c.encode("started", forKey: .event)
            try c.encode(run, forKey: .run)
            try c.encode(steps, forKey: .steps)
            try c.encodeIfPresent(resumedAt, forKey: .resumedAt)
        case .stepStarted(let index, let of, let from, let to, let kind, let rows):
            try c.encode("stepStarted", forKey: .event)
            try c.encode(index + 1, forKey: .step)
            try c.encode(of, forKey: .of)
            try c.encode(from, forKey: .from)
            try c.encode(to, forKey: .to)
            try c.encode(kind, forKey: .kind)
            try c.encode(rows, forKey: .estimatedRows)
        case .hook(let name, let done, let total):
            try c.encode("hook", forKey: .event)
            try c.encode(name, forKey: .hook)
            try c.encode(done, forKey: .done)
            try c.encodeIfPresent(total, forKey: .total)
        case .slice(let table, let copied, let of, let secondsLeft):
            try c.encode("slice", forKey: .event)
            try c.encode(table, forKey: .table)
            try c.encode(copied, forKey: .copied)
            try c.encode(of, forKey: .of)
            try c.encodeIfPresent(secondsLeft, forKey: .secondsLeft)
        case .reclaiming(let rowsLeft, let freePagesLeft):
            try c.encode("reclaiming", forKey: .event)
            try c.encode(rowsLeft, forKey: .rowsLeft)
            try c.encodeIfPresent(freePagesLeft, forKey: .freePagesLeft)
        case .stepFinished(let index, let of, let seconds):
            try c.encode("stepFinished", forKey: .event)
            try c.encode(index + 1, forKey: .step)
            try c.encode(of, forKey: .of)
            try c.encode(seconds, forKey: .seconds)
        case .paused(let reason):
            try c.encode("paused", forKey: .event)
            try c.encode(reason.description, forKey: .reason)
        case .finished(let steps, let seconds):
            try c.encode("finished", forKey: .event)
            try c.encode(steps, forKey: .steps)
            try c.encode(seconds, forKey: .seconds)
        }
    }
}

extension ProgressEvent.StepKind: Codable {}

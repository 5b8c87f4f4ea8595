import Foundation
import Testing

@_spi(Layouts) @testable import InstarLayouts
@_spi(Layouts) @testable import InstarModel
@_spi(Layouts) @testable import InstarStore
import InstarTestSupport

/// A store error's throw sites state facts; `StoreError+Rendering.swift` alone turns them into words.
/// Each reason's words must name the facts it was given, and no other source file may write them.
@Suite struct StoreErrorRenderingTests {
    static let path = "/nonexistent/dir/store.sqlite"
    static let lockedFailure = SQLiteFailure(code: 5, extendedCode: 5, message: "database is locked", sql: "BEGIN IMMEDIATE")
    static let constraint = SQLiteFailure(
        code: 19, extendedCode: 1299, message: "NOT NULL constraint failed: ZTRACK.ZTITLE", sql: "INSERT INTO ZTRACK …")

    /// Lists every reason once: the switch has no default, so a new reason does not compile until it is
    /// given a sample below with the facts its words must name.
    static func facts(_ reason: StoreError.Reason) -> [String] {
        switch reason {
        case .sqlite(let operation), .hotJournal(let operation), .corruptBesideWAL(let operation): [operation.phrase]
        case .underlying: ["sql", "Track"]
        case .unexpected(let operation), .openedReadOnly(let operation): [operation.phrase]
        case .noFile(let role): [role == .backup ? "backup" : "store"]
        case .notARegularFile(let role, let kind, _): [role.phrase, kind.noun]
        case .sidecarNotARegularFile(let suffix, let role, let kind): [suffix, role.phrase, kind.noun]
        case .emptyFileBesideWAL(let bytes): ["\(bytes) bytes", "-wal"]
        case .fileInTheWay(let role): [role == .backup ? "backup" : "already exists"]
        case .emptyBackup: ["backup", "empty"]
        case .inMemoryDatabase: ["in-memory"]
        case .declaredTypeNotSQL(let table, let column, let declaredType): [table, column, declaredType]
        case .unknownSecureDeleteMode(let mode): [mode]
        case .planHasNoVersions: ["no versions"]
        case .tooFewVersions(let count): ["two versions", "\(count)"]
        case .targetNotInPlan(let target, _): [target]
        case .emptyStore: ["empty", "no tables"]
        case .versionNotInPlan(let name): [name ?? "", "V1", "sneaky"]
        case .schemaDrift(let version): [version, "sneaky"]
        case .changedBeforeFirstWrite: ["another connection"]
        case .foreignKeyBroken(let origin, let table, let row, let parent):
            switch origin {
            case .seeding: ["seeding", table, row ?? "", parent]
            case .mappingModel(let name), .part(let name): [name, table, row ?? "", parent]
            }
        case .integrityCheckFailed(let model, let problems): [model] + problems
        case .schemaNotReached(let version, _): [version, "sneaky"]
        case .rowCountChanged(let source, let destination, let before, let after): [source, destination, "\(before)", "\(after)"]
        case .viewOrTriggerBroken(let type, let name, let version): [type, name, version, "NOT NULL constraint failed"]
        case .dataDoesNotFit(let version, let purpose): [version, purpose, "NOT NULL constraint failed"]
        case .mappingStatementFailed(let model, let purpose): [model, purpose, "NOT NULL constraint failed"]
        case .dataViolations: ["Track", "title", "3"]
        }
    }

    /// One error per reason, with the facts a throw site would give it.
    static func samples() -> [StoreError] {
        let sneaky = SchemaDifference(kind: .extraColumn, table: "Track", column: "sneaky", actual: "TEXT")
        var drift = StoreError(.schemaDrift, path: path, reason: .schemaDrift(version: "V3"))
        drift.drift = [sneaky]
        var unknown = StoreError(.unknownVersion, path: path, reason: .versionNotInPlan(metadataName: "V9"))
        unknown.closestVersion = "V1"
        unknown.drift = [sneaky]
        var violations = StoreError(.dataCondition, path: path, reason: .dataViolations)
        violations.dataViolations = [
            DataViolation(.noNulls(entity: "Track", property: "title"), count: 3, message: "3 'Track' rows have no 'title'")
        ]
        let layoutError = LayoutError(layout: "sql", entity: "Track", .namingKey("table"))
        return [
            StoreError(.locked, path: path, reason: .sqlite(.backingUp(to: "/tmp/b.sqlite")), sqlite: lockedFailure),
            StoreError(.diskFull, path: path, reason: .sqlite(.migrating(step: "V1 → V2")), sqlite: lockedFailure),
            StoreError(.sqlite, path: path, reason: .sqlite(.readingSchema(version: "V2")), sqlite: constraint),
            StoreError(.needsRecovery, path: path, reason: .hotJournal(.opening)),
            StoreError(.corrupt, path: path, reason: .corruptBesideWAL(.restoring(from: "/tmp/b.sqlite")), sqlite: constraint),
            StoreError(.layout, path: path, reason: .underlying, underlying: layoutError),
            StoreError(.sqlite, path: path, reason: .unexpected(.countingRows), underlying: CancellationError()),
            StoreError(.readOnly, path: path, reason: .openedReadOnly(.seeding)),
            StoreError(.notFound, path: path, reason: .noFile(.backup)),
            StoreError(.notARegularFile, path: path, reason: .notARegularFile(.fixture, .fifo, viaLink: true)),
            StoreError(.notARegularFile, path: path + "-wal", reason: .sidecarNotARegularFile(suffix: "-wal", role: .store, kind: .directory)),
            StoreError(.corrupt, path: path, reason: .emptyFileBesideWAL(walBytes: 4152)),
            StoreError(.alreadyExists, path: path, reason: .fileInTheWay(.backup)),
            StoreError(.alreadyExists, path: path, reason: .fileInTheWay(.store)),
            StoreError(.notADatabase, path: path, reason: .emptyBackup),
            StoreError(.notFound, path: "<temporary database>", reason: .inMemoryDatabase),
            StoreError(.layout, path: path, reason: .declaredTypeNotSQL(table: "Song", column: "rating", declaredType: "INT; DROP")),
            StoreError(.sqlite, path: path, reason: .unknownSecureDeleteMode("sometimes")),
            StoreError(.unknownVersion, path: path, reason: .planHasNoVersions),
            StoreError(.unknownVersion, path: path, reason: .tooFewVersions(count: 1)),
            StoreError(.unknownVersion, path: path, reason: .targetNotInPlan(target: "V22", versions: ["V1", "V2"])),
            StoreError(.unknownVersion, path: path, reason: .emptyStore),
            unknown,
            drift,
            StoreError(.locked, path: path, reason: .changedBeforeFirstWrite),
            StoreError(.verificationFailed, path: path, reason: .foreignKeyBroken(after: .seeding, table: "Song", row: "7", parent: "Album")),
            StoreError(
                .verificationFailed, path: path,
                reason: .foreignKeyBroken(after: .mappingModel("V1toV2"), table: "Song", row: nil, parent: "Album")),
            StoreError(
                .verificationFailed, path: path,
                reason: .foreignKeyBroken(after: .part("hook 'fill'"), table: "Song", row: "7", parent: "Album")),
            StoreError(.verificationFailed, path: path, reason: .integrityCheckFailed(mappingModel: "V1toV2", problems: ["page 4 is never used"])),
            StoreError(.verificationFailed, path: path, reason: .schemaNotReached(version: "V2", differences: [sneaky])),
            StoreError(.verificationFailed, path: path, reason: .rowCountChanged(source: "Song", destination: "Track", before: 10, after: 9)),
            StoreError(.verificationFailed, path: path, reason: .viewOrTriggerBroken(type: "trigger", name: "stamp", version: "V2"), sqlite: constraint),
            StoreError(.dataCondition, path: path, reason: .dataDoesNotFit(version: "V2", purpose: "copy 'Track'"), sqlite: constraint),
            StoreError(
                .dataCondition, path: path, reason: .mappingStatementFailed(mappingModel: "V1toV2", purpose: "rows of 'Track'"),
                sqlite: constraint),
            violations,
        ]
    }

    @Test func everyReasonNamesItsFacts() {
        for error in Self.samples() {
            #expect(error.description.hasPrefix(error.path + ": "), "\(error)")
            #expect(!error.message.isEmpty)
            for fact in Self.facts(error.reason) where !fact.isEmpty {
                #expect(error.description.contains(fact), "\(error.reason): '\(fact)' is missing from: \(error)")
            }
        }
    }

    /// Every kind a SQLite failure is sorted into says what was being done and keeps SQLite's words.
    @Test func sqliteFailuresNameTheOperation() {
        let kinds: [StoreError.Kind] = [.diskFull, .locked, .interrupted, .corrupt, .protectedDataUnavailable, .ioError, .sqlite]
        for kind in kinds {
            let error = StoreError(kind, path: Self.path, reason: .sqlite(.backingUp(to: "/tmp/b.sqlite")), sqlite: Self.constraint)
            #expect(error.message.contains("backing up to /tmp/b.sqlite"), "\(kind): \(error)")
        }
        let failed = StoreError(.sqlite, path: Self.path, reason: .sqlite(.checkingData), sqlite: Self.constraint)
        #expect(failed.message.contains("NOT NULL constraint failed: ZTRACK.ZTITLE"))
    }

    @Test func aTargetNotInThePlanSuggestsTheClosestName() {
        let error = StoreError(.unknownVersion, path: Self.path, reason: .targetNotInPlan(target: "V22", versions: ["V1", "V2"]))
        #expect(error.hint?.contains("V2") == true, "\(error)")
    }

    /// No source file but the renderer writes a store error's words: every construction gives a
    /// reason, and none passes a message or a hint (the initializer takes neither, so this guards the
    /// escape routes: a `hint:` label or a message smuggled through another parameter).
    @Test func noThrowSiteWritesProse() throws {
        let sources = packageRoot.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)!
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        var constructions = 0
        for file in files where file.lastPathComponent != "StoreError+Rendering.swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            var rest = text[...]
            while let start = rest.range(of: "StoreError(") {
                let call = Self.call(in: rest[start.lowerBound...])
                constructions += 1
                #expect(call.contains("reason:"), "\(file.lastPathComponent): \(call)")
                #expect(!call.contains("hint:") && !call.contains("message:"), "\(file.lastPathComponent): \(call)")
                // The only literal a construction may hold is a placeholder path.
                let literals = call.split(separator: "\"", omittingEmptySubsequences: false).count / 2
                #expect(literals == 0 || call.contains("<temporary database>"), "\(file.lastPathComponent): \(call)")
                rest = rest[start.upperBound...]
            }
        }
        #expect(constructions > 30)
    }

    /// The text of the call that begins `text`, up to its closing parenthesis.
    static func call(in text: Substring) -> Substring {
        var depth = 0
        for index in text.indices {
            switch text[index] {
            case "(": depth += 1
            case ")":
                depth -= 1
                if depth == 0 { return text[...index] }
            default: break
            }
        }
        return text
    }
}

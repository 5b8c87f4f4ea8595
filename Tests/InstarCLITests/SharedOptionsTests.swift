import Testing
@testable import InstarCLI

/// The options several commands share are one declaration each (Options.swift): every command that
/// takes one parses it into the same group, and reads the same value through it.
@Suite struct SharedOptionsTests {
    func parse<Command>(_ arguments: [String], as type: Command.Type) throws -> Command {
        try #require(try InstarCommand.parseAsRoot(arguments) as? Command, "\(arguments)")
    }

    @Test func storeIsOneOptionEverywhere() throws {
        #expect(try parse(["inspect", "--store", "s.sqlite"], as: InspectCommand.self).store == "s.sqlite")
        #expect(try parse(["status", "--store", "s.sqlite"], as: StatusCommand.self).store == "s.sqlite")
        #expect(try parse(["migrate", "p.yaml", "--store", "s.sqlite"], as: MigrateCommand.self).store == "s.sqlite")
        #expect(try parse(["restore", "--backup", "b", "--store", "s.sqlite"], as: RestoreCommand.self).store == "s.sqlite")
        #expect(try parse(["model", "export", "--store", "s.sqlite"], as: ModelExportCommand.self).store == "s.sqlite")
        #expect(try parse(["plan", "p.yaml", "--store", "s.sqlite"], as: PlanCommand.self).store == "s.sqlite")
        #expect(try parse(["graph", "p.yaml", "--store", "s.sqlite"], as: GraphCommand.self).store == "s.sqlite")
        #expect(try parse(["plan", "p.yaml"], as: PlanCommand.self).store == nil)
        // Required where the command needs a store: a usage error without it.
        for command in ["inspect", "status", "model export"] {
            let result = InstarCommand.runInProcess(command.split(separator: " ").map(String.init), columns: 100)
            #expect(result.status == 64, "\(command): \(result.stderr)")
        }
    }

    @Test func planModelsFormatAndSourcesAreOneOptionEach() throws {
        let plan = try parse(["plan", "--model", "a.yaml", "--model", "b.yaml", "--format", "markdown"], as: PlanCommand.self)
        #expect(plan.plan == nil && plan.models == ["a.yaml", "b.yaml"] && plan.format == .markdown)
        let test = try parse(["test", "p.yaml", "--format", "json"], as: TestCommand.self)
        #expect(test.plan == "p.yaml" && test.models.isEmpty && test.format == .json)
        #expect(try parse(["lint", "--model", "App.xcdatamodeld"], as: LintCommand.self).models == ["App.xcdatamodeld"])
        #expect(try parse(["export", "--model", "m", "--output", "o"], as: ExportCommand.self).models == ["m"])
        #expect(try parse(["migrate", "--store", "s", "--model", "m"], as: MigrateCommand.self).models == ["m"])
        #expect(try parse(["inspect", "--store", "s", "--model", "m"], as: InspectCommand.self).models == ["m"])
        #expect(try parse(["store", "seed", "s", "--rows", "1", "--model", "m"], as: SeedStoreCommand.self).models == ["m"])
        for arguments in [
            ["plan", "--swiftdata", "Src", "--migration-plan", "P", "--hooks", "h.yaml"],
            ["migrate", "--store", "s", "--swiftdata", "Src", "--migration-plan", "P", "--hooks", "h.yaml"],
            ["export", "--swiftdata", "Src", "--migration-plan", "P", "--hooks", "h.yaml", "--output", "o"],
        ] {
            let command = try InstarCommand.parseAsRoot(arguments)
            let values: (swiftdata: [String], migrationPlan: String?, hooks: String?)? =
                switch command {
                case let c as PlanCommand: (c.swiftdata, c.migrationPlan, c.hooks)
                case let c as MigrateCommand: (c.swiftdata, c.migrationPlan, c.hooks)
                case let c as ExportCommand: (c.swiftdata, c.migrationPlan, c.hooks)
                default: nil
                }
            #expect(values?.swiftdata == ["Src"] && values?.migrationPlan == "P" && values?.hooks == "h.yaml", "\(arguments)")
        }
        let lint = try parse(["lint", "--swiftdata", "Src", "--migration-plan", "P"], as: LintCommand.self)
        #expect(lint.swiftdata == ["Src"] && lint.migrationPlan == "P")
    }
}

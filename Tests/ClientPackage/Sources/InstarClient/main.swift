import Foundation
import Instar

// Only compiled by CI (the point is that it builds); running it explains an error an app may meet.
let missing = URL(fileURLWithPath: "/nonexistent/store.sqlite")
do {
    _ = try DryRun.report(plan: Plan(name: "empty", file: "", versions: []), storePath: missing.path)
} catch {
    print(explain(error))
}

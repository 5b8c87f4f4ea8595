import Foundation
import Instar

// Only compiled by CI (the point is that it builds); running it explains an error an app may meet.
let missing = URL(fileURLWithPath: "/nonexistent/store.sqlite")
do {
    _ = try SQLiteStore.open(at: missing.path, readOnly: true)
} catch {
    print(explain(error))
}

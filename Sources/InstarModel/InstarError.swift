/// Every error Instar's library throws at an app conforms: one type to catch, then
/// ``InstarError/domain`` (from `import Instar`) to switch on, each case carrying that error's facts.
///
/// ```swift
/// do {
///     try migrator.migrate(storeAt: path)
/// } catch let error as InstarError {
///     switch error.domain {
///     case .store(let store) where store.kind == .locked: retryLater()
///     case .hook(let hook): log(hook.hook, hook.underlying)
///     default: show(error.description)
///     }
/// }
/// ```
///
/// The protocol lives in the lowest module so that every layer's public error can conform where it is
/// declared; a package-only error never conforms, so an app is never handed one (the runtime and
/// ``DryRun`` turn those into ``StoreError``s). `description` says what happened in words an app can
/// show; what to do about it, in command-line terms, is the `instar` command's to add.
public protocol InstarError: Error, Sendable, CustomStringConvertible {}

import ArgumentParser

/// `cachechain demo`: the walk-through — loopback origins, a disk cache with encrypted HTTPS, every status.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Walk through the cache against loopback origins: MISS, HIT, stale, 304 REVALIDATED, encrypted HTTPS, purge.",
        discussion: """
            Starts an HTTP and an HTTPS origin on 127.0.0.1 (no network needed), a disk cache in a temporary \
            directory with HTTPS responses encrypted in <dir>/encrypted, and prints one table row per step. \
            The cache's clock is moved forward two minutes to make a response stale, without waiting.

            Exit codes: 0 the walk-through completed; 1 a step failed (the error is printed).

            Example:
              cachechain demo
            """
    )

    @Flag(help: "Keep the temporary cache directory and key file, and print where they are.")
    var keep = false

    func run() async throws {
        do {
            try await DemoWalkthrough(keepsDirectory: keep).run()
        } catch {
            throw ToolExitCode.failing("Error: the demo failed: \(error)")
        }
    }
}

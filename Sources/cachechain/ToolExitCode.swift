import ArgumentParser

/// The exit codes `cachechain` documents (sysexits values, as ArgumentParser uses for usage errors).
enum ToolExitCode {
    /// A runtime failure (an error message is printed on stderr).
    static let failure = ExitCode.failure
}

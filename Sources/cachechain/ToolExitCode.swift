import ArgumentParser

/// The exit codes `cachechain` documents (sysexits values, as ArgumentParser uses for usage errors).
enum ToolExitCode {
    /// Success.
    static let success = ExitCode.success
    /// A runtime failure (an error message is printed on stderr).
    static let failure = ExitCode.failure
    /// Invalid usage: unknown, malformed or conflicting options (`EX_USAGE`, ArgumentParser's code).
    static let usage = ExitCode.validationFailure
}

import ArgumentParser

/// The exit codes `cachechain` documents (sysexits values, as ArgumentParser uses for usage errors).
enum ToolExitCode {
    /// A runtime failure (an error message is printed on stderr).
    static let failure = ExitCode.failure
    /// `get -m`: the request took longer (curl's `CURLE_OPERATION_TIMEDOUT`).
    static let timedOut = ExitCode(28)
    /// `get -L`: more redirects than `--max-redirs` (curl's `CURLE_TOO_MANY_REDIRECTS`).
    static let tooManyRedirects = ExitCode(47)

    /// Prints `message` on stderr and gives ``failure``, for `throw ToolExitCode.failing("Error: …")`.
    /// - Parameter message: The line to print, naming what failed and what to do.
    /// - Returns: ``failure``.
    static func failing(_ message: String) -> ExitCode {
        printError(message)
        return failure
    }
}

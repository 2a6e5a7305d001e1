import ArgumentParser
import Foundation

/// What `get` writes besides the body, as curl: quiet by default on stderr (warnings and errors only), `-s` for
/// nothing, `-S` for errors even with `-s`, `-v` for the request and response fields plus the cache's trace,
/// `--trace` for the trace alone, `-w` for a line of facts on stdout after the body.
struct GetOutputOptions: ParsableArguments {
    @Flag(name: [.customShort("s"), .customLong("silent")], help: "Print nothing on stderr: no progress, warnings or error messages (curl's -s).")
    var silent = false

    @Flag(name: [.customShort("S"), .customLong("show-error")], help: "With -s, still print error messages (curl's -S).")
    var showError = false

    @Flag(
        name: [.customShort("v"), .customLong("verbose")],
        help: "Print on stderr the request sent ('> ' lines) and the response's fields ('< ' lines), as curl's -v, then the cache status, decision trace, cache key, age, size and timing ('* ' lines)."
    )
    var verbose = false

    @Flag(help: "Print on stderr the cache status and decision trace (what -v adds to the fields).")
    var trace = false

    @Option(
        name: [.customShort("w"), .customLong("write-out")],
        help: ArgumentHelp(
            "After the body, write this to stdout, with %{http_code}, %{cache_status}, %{size_download}, %{time_total}, "
                + "%{num_redirects}, %{content_type}, %{method}, %{url} replaced and \\n, \\t expanded (curl's -w).",
            valueName: "format"
        )
    )
    var writeOut: String?

    @Flag(
        inversion: .prefixedNo,
        help: "Show download progress on stderr (every MiB); on by default when stderr is a terminal, off with -s."
    )
    var progress: Bool?

    func validate() throws {
        try writeOut.map(WriteOut.init(format:))?.validate()
    }

    /// The stderr filter of `-s` and `-S`.
    var filter: StandardErrorFilter {
        guard silent else { return .everything }
        return showError ? .errorsOnly : .nothing
    }

    /// Whether the progress line is shown: `--progress`/`--no-progress`, else when stderr is a terminal and not `-s`.
    var showsProgress: Bool {
        progress ?? (!silent && isatty(STDERR_FILENO) == 1)
    }
}

import ArgumentParser
import CacheChain
import Foundation

/// `get -w/--write-out FORMAT`: text written to stdout after the body, with curl's `%{variable}` placeholders and
/// `\n`, `\t`, `\r`, `\\` escapes, plus the cache's own `%{cache_status}`.
///
/// Variables: `http_code` and `response_code` (the status), `cache_status` (what the cache did: `hit`, `miss`,
/// `stale`, `revalidated`…), `size_download` (body bytes), `time_total` (seconds, with microseconds, as curl),
/// `num_redirects` (hops followed with `-L`), `content_type`, `method`, `url` (as given). `%%` is a `%`.
struct WriteOut {
    /// The variables `%{…}` may name.
    static let variables = ["http_code", "response_code", "cache_status", "size_download", "time_total", "num_redirects", "content_type", "method", "url"]

    let format: String

    /// Checks that every `%{…}` names a known variable.
    /// - Throws: `ValidationError` (exit 64) naming the unknown one and the known ones.
    func validate() throws {
        var rest = Substring(format)
        while let open = rest.range(of: "%{") {
            guard let close = rest[open.upperBound...].firstIndex(of: "}") else {
                throw ValidationError("-w: '%{' without a closing '}' in '\(format)'")
            }
            let name = String(rest[open.upperBound..<close])
            guard Self.variables.contains(name) else {
                throw ValidationError("-w: unknown variable %{\(name)}; known: \(Self.variables.map { "%{\($0)}" }.joined(separator: ", "))")
            }
            rest = rest[rest.index(after: close)...]
        }
    }

    /// The text for a response.
    /// - Parameters:
    ///   - response: The response.
    ///   - request: The request as built from the options.
    ///   - url: The URL as given.
    ///   - elapsed: The time from before the request to the end of the body.
    /// - Returns: The format with its variables and escapes replaced.
    func text(for response: PipelineResponse, request: HTTPRequest, url: String, elapsed: Duration) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let values: [String: String] = [
            "http_code": "\(response.head.status.code)",
            "response_code": "\(response.head.status.code)",
            "cache_status": response.cacheStatus.rawValue,
            "size_download": "\(response.body.count)",
            "time_total": Self.sixDecimals(seconds),
            "num_redirects": "\(response.trace.count { $0.code == .redirected })",
            "content_type": response.head.headerFields[.contentType] ?? "",
            "method": request.method.rawValue,
            "url": url,
        ]
        var output = ""
        var characters = Substring(format)
        while let character = characters.popFirst() {
            switch character {
            case "%" where characters.first == "%":
                characters.removeFirst()
                output.append("%")
            case "%" where characters.first == "{":
                guard let close = characters.firstIndex(of: "}") else { output.append("%"); continue }
                let name = String(characters[characters.index(after: characters.startIndex)..<close])
                output += values[name] ?? ""
                characters = characters[characters.index(after: close)...]
            case "\\" where characters.first.map({ "ntr\\".contains($0) }) == true:
                let escaped = characters.removeFirst()
                output += ["n": "\n", "t": "\t", "r": "\r", "\\": "\\"][escaped] ?? ""
            default:
                output.append(character)
            }
        }
        return output
    }

    private static func sixDecimals(_ value: Double) -> String {
        let micros = Int((value * 1_000_000).rounded())
        let fraction = String(micros % 1_000_000)
        return "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}

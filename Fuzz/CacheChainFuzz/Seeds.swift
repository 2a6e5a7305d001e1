import CacheChainCore
import Foundation
import HTTPTypes

/// Valid inputs for each target: libFuzzer mutates from these.
enum Seeds {
    static let body = Array("{\"items\":[1,2,3]}".utf8)

    /// A stored entry with the fields the decoders carry: status, Vary, validators, userInfo.
    static let entry: CacheEntry = {
        var request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/v1/items?page=2")
        request.headerFields[.accept] = "application/json"
        var response = HTTPResponse(status: .ok)
        response.headerFields[.cacheControl] = "max-age=600, stale-while-revalidate=30"
        response.headerFields[.vary] = "Accept"
        response.headerFields[.eTag] = "\"v1\""
        response.headerFields[.date] = "Sun, 06 Nov 1994 08:49:37 GMT"
        let time = Date(timeIntervalSince1970: 1_800_000_000)
        return CacheEntry(
            request: request,
            cached: CachedResponse(response: response, body: PipelineBody(body), requestTime: time, responseTime: time)
        )
    }()

    static let cacheControl: [[UInt8]] = [
        "max-age=60, public", "no-cache=\"Set-Cookie, X-Token\", must-revalidate",
        "s-maxage=10, stale-while-revalidate=30, stale-if-error=600\nprivate", "max-age=\"120\", immutable, no-store",
    ].map { Array($0.utf8) }

    static let httpDates: [[UInt8]] = [
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
    ].map { Array($0.utf8) }

    /// A final response after an interim one, a NUL, then the request: as a private cache with the protocol
    /// policy (selector 1), and as a shared cache with `returnCacheDataElseLoad` (0x39).
    static let responseHeads: [[UInt8]] = [1, 0x39].map { selector in
        [selector] + Array("""
            HTTP/1.1 100 Continue

            HTTP/1.1 200 OK
            Cache-Control: max-age=60, must-revalidate, s-maxage=30
            Age: 10
            Date: Sun, 06 Nov 1994 08:49:37 GMT
            Expires: Sun, 06 Nov 1994 09:49:37 GMT
            Last-Modified: Sat, 05 Nov 1994 08:49:37 GMT
            Vary: Accept, Accept-Encoding
            Content-Length: 5
            ETag: "x"
            X-Folded: one
              two

            """.utf8) + [0] + Array("""
            Accept: text/html
            If-None-Match: "x"
            Cache-Control: max-stale=5
            Host: example.com
            """.utf8)
    }

    static let batchLines: [[UInt8]] = [
        Array("""
            {"type":"hello","protocol":1}
            {"type":"request","id":1,"method":"POST","url":"https://example.com/a?b=c","headers":[["Accept","text/html"],["X-Bin","\\u00e9"]],"body":"hi","cache_mode":"no-store","redirect":"manual","timeout_ms":2500}
            {"type":"request","id":2,"url":"http://example.com/","body_base64":"aGk=","cache_mode":"only-if-cached"}
            {"type":"end"}
            """.utf8),
    ]
}

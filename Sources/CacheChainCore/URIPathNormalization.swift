import CacheChainPolicy

/// RFC 3986 normalization of a request target's path and query (`/a/./b/../c?x=%7e`), for cache keys:
/// equivalent targets get one key, the one the request is fetched under.
///
/// Applied in order, as RFC 3986 §6.2.2 lists them: percent-encodings of unreserved characters are
/// decoded and the others' hexadecimal digits uppercased (§6.2.2.1–2), then the path's `.` and `..`
/// segments are removed (§5.2.4, `remove_dot_segments`; libcurl does the same to the path it sends). The
/// query keeps its dot segments (they are data there), and a target without `%` or dot segments — nearly
/// all of them — is returned as it is, without a copy.
enum URIPathNormalization {
    /// The normalized target.
    /// - Parameter target: A path with an optional query, e.g. `/a/../b?q=1`.
    /// - Returns: The normalized target; `/` for a path that normalizes to nothing.
    static func normalized(_ target: String) -> String {
        let utf8 = target.utf8
        let queryStart = utf8.firstIndex(of: UInt8(ascii: "?"))
        let path = utf8[..<(queryStart ?? utf8.endIndex)]
        let hasPercent = utf8.contains(UInt8(ascii: "%"))
        guard hasPercent || hasDotSegment(path) else { return target }
        var pathBytes = Array(path)
        var queryBytes = queryStart.map { Array(utf8[$0...]) } ?? []
        if hasPercent {
            pathBytes = normalizingPercentEncodings(pathBytes)
            queryBytes = normalizingPercentEncodings(queryBytes)
        }
        pathBytes = URIReference.removingDotSegments(pathBytes)
        if pathBytes.isEmpty { pathBytes = [slash] }
        return String(decoding: pathBytes + queryBytes, as: UTF8.self)
    }

    private static let slash = UInt8(ascii: "/")
    private static let dot = UInt8(ascii: ".")

    /// Whether some segment of the path is `.` or `..` (a `%2E` one is caught by the caller's `%` test).
    private static func hasDotSegment(_ path: Substring.UTF8View) -> Bool {
        var previous = slash
        var index = path.startIndex
        while index != path.endIndex {
            let byte = path[index]
            if byte == dot && previous == slash {
                let next = path.index(after: index)
                let after = next == path.endIndex ? slash : path[next]
                if after == slash { return true }
                if after == dot {
                    let third = path.index(after: next)
                    if third == path.endIndex || path[third] == slash { return true }
                }
            }
            previous = byte
            index = path.index(after: index)
        }
        return false
    }

    /// RFC 3986 §6.2.2.1–2: `%7e` → `~`, `%41` → `A`, `%2f` → `%2F`; a `%` not followed by two hexadecimal
    /// digits is left as it is.
    static func normalizingPercentEncodings(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            else {
                result.append(bytes[index])
                index += 1
                continue
            }
            let decoded = high << 4 | low
            if isUnreserved(decoded) {
                result.append(decoded)
            } else {
                result += [UInt8(ascii: "%"), uppercaseHex(high), uppercaseHex(low)]
            }
            index += 3
        }
        return result
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func uppercaseHex(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    /// RFC 3986 §2.3: ALPHA / DIGIT / "-" / "." / "_" / "~".
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}

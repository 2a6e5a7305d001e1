#if Loopback
import CacheChainPolicy
import Foundation

extension LoopbackRoute {
    /// The answer to `request` under ``servesRanges``: a `206` with the one range it asks for, a `416` when that
    /// lies past the end, or this route unchanged (no `Range`, several ranges, an `If-Range` that does not match,
    /// a body that is not ``Body/bytes(_:)``, a status other than `200`).
    /// - Parameter request: The request.
    /// - Returns: The route to answer with.
    func answeringRange(of request: LoopbackRequest) -> LoopbackRoute {
        guard servesRanges, status == 200, request.method == "GET", let field = request.header("Range"),
            let range = ByteRangeRequest(rangeField: field), case .bytes(let bytes) = body
        else { return self }
        func header(_ name: String) -> String? { headers.last { $0.name.lowercased() == name.lowercased() }?.value }
        if let validator = request.header("If-Range"),
            !ByteRangeRequest.ifRangeAllowsRange(
                validator, eTag: etag ?? header("ETag"), lastModified: lastModified ?? header("Last-Modified"),
                date: header("Date") ?? HTTPDate.format(Date())
            )
        {
            return self
        }
        var answer = self
        switch range.selection(inLength: bytes.count) {
        case .whole:
            return self
        case .unsatisfiable:
            answer.status = 416
            answer.body = .bytes([])
            answer.headers.append(LoopbackHeader("Content-Range", "bytes */\(bytes.count)"))
        case .bytes(let positions):
            answer.status = 206
            answer.body = .bytes(Array(bytes[positions]))
            answer.headers.append(LoopbackHeader("Content-Range", "bytes \(positions.lowerBound)-\(positions.upperBound)/\(bytes.count)"))
        }
        return answer
    }
}
#endif

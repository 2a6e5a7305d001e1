package import CacheChainPolicy
package import HTTPTypes

/// The discriminator that keys a body-keyed entry (body-keyed caching, ``CachePolicyInterceptor/bodyKeyedCaching``): the request's method and
/// body, and the credentials it carries, so that one user's answer is never served to another.
///
/// `body-sha256=<SHA-256 of method · 0 · body>` for a `POST`; for a `QUERY`, `content-sha256=<SHA-256 of
/// QUERY · 0 · media type · 0 · content coding · 0 · normalised content>` (``QueryContentNormalization``: JSON
/// whitespace and member order, form field order), followed, when the request carries `Authorization`,
/// `Proxy-Authorization` or `Cookie`, by ` credentials=<hex>`: the SHA-256 of those fields' keyed digests
/// (`VaryFields.comparableValue(of:in:key:)`, HMAC-SHA256 under the storage's `VaryDigestKey`, as for a `Vary`
/// on them), so the key tells users apart without holding or revealing their credentials. The same body with the
/// same credentials gives the same key (a hit); other credentials, or none, give another.
package enum BodyKeyDigest {
    /// The fields whose values tell one user from another, in a fixed order.
    package static let credentialFields = VaryFields.secretFieldNames.sorted()

    /// The discriminator for a body-keyed request.
    /// - Parameters:
    ///   - method: The original method (`POST` or `QUERY`).
    ///   - body: The whole body.
    ///   - request: The request, for its `Authorization`, `Proxy-Authorization` and `Cookie` fields.
    ///   - secret: The storage's key for secret fields (`CacheStorage.varyDigestKey(for:)`).
    /// - Returns: `body-sha256=<hex>` (`content-sha256=<hex>` for a `QUERY`), plus ` credentials=<hex>` when the request carries credentials.
    package static func discriminator(method: HTTPRequest.Method, body: [UInt8], request: HTTPRequest, secret: VaryDigestKey) -> String {
        let bodyDigest: String
        if method == BodyKeyedCachingRule.query {
            // RFC 10008 §2.7: the content as normalised for its media type, with the type and coding themselves.
            let content = QueryContentNormalization.keyedContent(
                body, contentType: request.headerFields[.contentType], contentEncoding: request.headerFields[.contentEncoding]
            )
            bodyDigest = "content-sha256=" + SHA256.hexDigest(Array(method.rawValue.utf8) + [0] + content)
        } else {
            bodyDigest = "body-sha256=" + SHA256.hexDigest(Array(method.rawValue.utf8) + [0] + body)
        }
        var credentials: [UInt8] = []
        for name in credentialFields {
            guard let digest = VaryFields.comparableValue(of: name, in: request, key: secret) else { continue }
            credentials += Array(name.utf8) + [0] + Array(digest.utf8) + [0]
        }
        return credentials.isEmpty ? bodyDigest : bodyDigest + " credentials=" + SHA256.hexDigest(credentials)
    }
}

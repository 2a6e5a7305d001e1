public import CacheChainCore
import Foundation
import HTTPTypes

/// A fixed entry (every field set, nothing from the clock) whose encoded metadata the storage tests compare
/// byte for byte with recorded values, so a refactoring of a binary codec cannot change a format silently.
public enum MetadataGoldenEntry {
    /// The entry.
    public static var entry: CacheEntry {
        var request = HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/a?b=1")
        request.headerFields[.accept] = "text/plain"
        request.headerFields.append(HTTPField(name: .acceptLanguage, value: "en"))
        var response = HTTPResponse(status: .ok)
        response.headerFields[.cacheControl] = "max-age=60"
        response.headerFields[.eTag] = "\"v1\""
        response.headerFields[.vary] = "Accept"
        var field = HTTPField(name: .setCookie, value: "a=b")
        field.indexingStrategy = .disallow
        response.headerFields.append(field)
        let userInfo = CacheUserInfo(encodedValues: ["tag": Data("\"t\"".utf8), "id": Data("7".utf8)])
        // Restored as a backend decodes it (nothing recomputed), so the bytes depend on the codec alone.
        return CacheEntry(
            restoringKey: CacheKey(method: "GET", scheme: "https", authority: "example.com", path: "/a?b=1", discriminator: "tenant=1"),
            variantKey: "accept=text/plain",
            request: request,
            cached: CachedResponse(
                response: response,
                body: PipelineBody(Array("hello".utf8)),
                userInfo: userInfo,
                storagePolicy: .allowedInMemoryOnly,
                requestTime: Date(timeIntervalSinceReferenceDate: 1000.25),
                responseTime: Date(timeIntervalSinceReferenceDate: 1001.5)
            ),
            storedAt: Date(timeIntervalSinceReferenceDate: 1002.75)
        )
    }

    /// Lowercase hexadecimal of bytes.
    /// - Parameter bytes: The bytes.
    /// - Returns: Two digits per byte.
    public static func hex(_ bytes: some Collection<UInt8>) -> String {
        bytes.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}

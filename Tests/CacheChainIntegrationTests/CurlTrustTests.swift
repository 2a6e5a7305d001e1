import CacheChain
import CacheChainCurl
import CacheChainLoopback
import Foundation
import HTTPTypes
import Testing

/// A self-signed certificate unrelated to the loopback origin (generated once with
/// `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500
/// -subj "/CN=CacheChain unrelated test CA"`; its key was discarded). Trusting it trusts nothing we serve.
let unrelatedCertificatePEM = """
    -----BEGIN CERTIFICATE-----
    MIIBpTCCAUugAwIBAgIUIqHWC+BDd8Xdm8kUgfC9DboOtqkwCgYIKoZIzj0EAwIw
    JzElMCMGA1UEAwwcQ2FjaGVDaGFpbiB1bnJlbGF0ZWQgdGVzdCBDQTAgFw0yNjEx
    MjMwMjQ2MjJaGA8yMTI2MTAzMDAyNDYyMlowJzElMCMGA1UEAwwcQ2FjaGVDaGFp
    biB1bnJlbGF0ZWQgdGVzdCBDQTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABEk1
    IQw+exQN+UBoz0nQr4N5Q2n0QBPZXrMrkQKZwrQtIFg6JerU24zyvSn38NEb3nOR
    tJFnycAD1Jh/9GlGp5qjUzBRMB0GA1UdDgQWBBTOox6smDkvQIbFOvM7GVlwGYyZ
    8zAfBgNVHSMEGDAWgBTOox6smDkvQIbFOvM7GVlwGYyZ8zAPBgNVHRMBAf8EBTAD
    AQH/MAoGCCqGSM49BAMCA0gAMEUCIFN8aEob6ZSDL+MM+9boteu/kJKHyRPEZx4w
    pkY/UgX7AiEA8MOT+sjPNDa0WaEKMedOAMPJhRtR1cKpcy2tEYt9cdw=
    -----END CERTIFICATE-----
    """

/// The OpenSSL subject hash of ``LoopbackCertificate`` (`openssl x509 -hash -noout`): the file name a
/// CA directory (`CURLOPT_CAPATH`) must give it.
let loopbackCertificateSubjectHash = "8b3ad7f2"

@Suite("TLS trust: CA file plus CA directory", .tags(.integration))
struct CurlTrustTests {
    private func makeDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cachechain-trust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("a CA file does not hide the CA directory: the directory's certificate is still trusted")
    func caFileAddsToCADirectory() async throws {
        let origin = try await LoopbackOrigin.start(tls: true)
        origin.route("/t", LoopbackRoute(body: "trusted"))
        let root = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let caFile = root.appendingPathComponent("unrelated.pem")
        try Data(unrelatedCertificatePEM.utf8).write(to: caFile)
        let hashed = root.appendingPathComponent("hashed")
        let empty = root.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: hashed, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        try Data(LoopbackCertificate.certificatePEM.utf8).write(to: hashed.appendingPathComponent("\(loopbackCertificateSubjectHash).0"))

        let withDirectory = HTTPCacheClient(
            transport: CurlTransport(configuration: .init(caFile: caFile.path, caDirectory: hashed.path))
        )
        #expect(try await withDirectory.data(for: HTTPRequest(url: origin.url("/t"))).body.string == "trusted")

        let withoutIt = HTTPCacheClient(
            transport: CurlTransport(configuration: .init(caFile: caFile.path, caDirectory: empty.path))
        )
        let error = await #expect(throws: CacheChainError.self) {
            try await withoutIt.data(for: HTTPRequest(url: origin.url("/t")))
        }
        #expect(error?.code == .transportFailed)
        try await origin.shutdown()
    }
}

#if Loopback
import Foundation

/// The loopback origin's TLS certificate: self-signed, for `127.0.0.1` and `localhost` only, valid until 2126.
///
/// **This key is public and for loopback tests only.** It was generated once with
/// `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500
/// -subj "/CN=CacheChain loopback test origin" -addext "subjectAltName=IP:127.0.0.1,DNS:localhost"`.
/// Never trust it outside tests, demos and benchmarks.
public enum LoopbackCertificate {
    /// The certificate in PEM form: give it to a client as its CA file.
    public static let certificatePEM = """
        -----BEGIN CERTIFICATE-----
        MIIBxjCCAW2gAwIBAgIUYvA9op7WDdKolR9txC1SKgq+dQ0wCgYIKoZIzj0EAwIw
        KjEoMCYGA1UEAwwfQ2FjaGVDaGFpbiBsb29wYmFjayB0ZXN0IG9yaWdpbjAgFw0y
        NjExMjMwMDE1MDRaGA8yMTI2MTAzMDAwMTUwNFowKjEoMCYGA1UEAwwfQ2FjaGVD
        aGFpbiBsb29wYmFjayB0ZXN0IG9yaWdpbjBZMBMGByqGSM49AgEGCCqGSM49AwEH
        A0IABEYF4WtCTuM85W7rQvpyEKpzWGE0XD3GQIuvUllrlOb4m3oNzJNB7vfzLfoJ
        ckxwI1Tap8zM5tiX/ou6piwVi0GjbzBtMB0GA1UdDgQWBBQFCvHoKXk8ExM3yIbF
        rY3ayEcsQDAfBgNVHSMEGDAWgBQFCvHoKXk8ExM3yIbFrY3ayEcsQDAPBgNVHRMB
        Af8EBTADAQH/MBoGA1UdEQQTMBGHBH8AAAGCCWxvY2FsaG9zdDAKBggqhkjOPQQD
        AgNHADBEAiAJFm8VRCIJtImjd2nChGuBry5uWtiuO+5E6h3x8XDvdAIgf2Lu/IlC
        S6SFb3HrGagglr4dnUloRytp+lmVmthTk90=
        -----END CERTIFICATE-----
        """

    /// The private key in PEM form (public knowledge: loopback tests only).
    static let privateKeyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgd52wbICGQkYznv0S
        mhhUCqJLC2trpR1NsfSn+DdYN/KhRANCAARGBeFrQk7jPOVu60L6chCqc1hhNFw9
        xkCLr1JZa5Tm+Jt6DcyTQe738y36CXJMcCNU2qfMzObYl/6LuqYsFYtB
        -----END PRIVATE KEY-----
        """

    /// The base64 of the SHA-256 of the certificate's DER SubjectPublicKeyInfo, computed once with
    /// `openssl x509 -in cert.pem -pubkey -noout | openssl pkey -pubin -outform der
    /// | openssl dgst -sha256 -binary | openssl base64`.
    public static let publicKeySHA256Base64 = "y1DBCkBpT909RS8gnsO7XOsWeGfFXbvMBBn5N2iaT/M="

    /// The certificate's public key pin in libcurl's format (`sha256//` + ``publicKeySHA256Base64``),
    /// for `CurlTransport.Configuration.pinnedPublicKey`.
    public static let publicKeyPin = "sha256//" + publicKeySHA256Base64

    /// Writes ``certificatePEM`` to `cert.pem` in a directory (atomically, so concurrent writers are
    /// harmless: the content never changes), for clients that need a CA file path.
    /// - Parameter directory: An existing, writable directory.
    /// - Returns: The file's path.
    /// - Throws: ``LoopbackError`` when the file cannot be written.
    public static func writeCertificate(to directory: String) throws -> String {
        let path = (directory as NSString).appendingPathComponent("cert.pem")
        do {
            try Data(certificatePEM.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw LoopbackError("could not write the loopback certificate to \(path): \(error)")
        }
        return path
    }
}
#else
#error("CacheChainLoopback needs the Loopback trait: build with --traits Loopback (or --enable-all-traits), or depend with traits: ['Loopback']")
#endif

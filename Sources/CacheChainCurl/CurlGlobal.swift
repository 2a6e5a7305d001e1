import CCurl

/// `curl_global_init`, called exactly once per process before the first handle is created.
enum CurlGlobal {
    /// The result of the one-time initialization; Swift runs a static initializer exactly once,
    /// thread-safely.
    static let initialization: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    /// Ensures libcurl is initialized; returns a message when it could not be.
    static func ensureInitialized() -> String? {
        initialization == CURLE_OK ? nil : "curl_global_init failed with code \(initialization.rawValue)"
    }

    /// The libcurl version text, e.g. `libcurl/7.88.1 OpenSSL/3.0.11 zlib/1.2.13 nghttp2/1.52.0`.
    static var versionText: String {
        _ = initialization
        guard let text = curl_version() else { return "libcurl (unknown version)" }
        return String(cString: text)
    }
}

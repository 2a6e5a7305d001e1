public import HTTPTypes

extension HTTPField.Name {
    /// `Pragma` (RFC 9111 §5.4), which swift-http-types does not predefine: deprecated, but still read
    /// for `no-cache` and sent by `reloadIgnoringLocalAndRemoteCacheData`.
    public static let pragma = HTTPField.Name("Pragma")!  // invariant: "Pragma" is a valid token, so this cannot fail
}

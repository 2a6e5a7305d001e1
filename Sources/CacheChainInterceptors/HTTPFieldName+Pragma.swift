import HTTPTypes

extension HTTPField.Name {
    /// `Pragma` (RFC 9111 §5.4), which swift-http-types does not predefine. A literal, valid token:
    /// the force unwrap cannot fail and the reload-policy tests cover it.
    static let pragma = HTTPField.Name("Pragma")!
}

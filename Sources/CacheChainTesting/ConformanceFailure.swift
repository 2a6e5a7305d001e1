/// A storage conformance check that did not hold: which check, and what differed.
public struct ConformanceFailure: Error, CustomStringConvertible {
    /// The check's name.
    public var check: String
    /// What was expected and what was found.
    public var detail: String

    /// Creates a failure.
    /// - Parameters:
    ///   - check: The check's name.
    ///   - detail: What differed.
    public init(check: String, detail: String) {
        self.check = check
        self.detail = detail
    }

    /// `storage conformance check '<check>' failed: <detail>`.
    public var description: String { "storage conformance check '\(check)' failed: \(detail)" }
}

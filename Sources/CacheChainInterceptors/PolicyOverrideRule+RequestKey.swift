public import CacheChainCore

extension PolicyOverrideRule {
    /// The context key of one request's own rule, used instead of the configured rules (its host and path conditions
    /// are ignored).
    ///
    /// ```swift
    /// var values = ContextValues()
    /// values[PolicyOverrideRule.RequestKey.self] = PolicyOverrideRule("this request", staleOnError: .seconds(3_600))
    /// let response = try await client.send(PipelineRequest(head: request), values: values)
    /// ```
    public enum RequestKey: ContextValueKey {
        /// The rule.
        public typealias Value = PolicyOverrideRule
    }
}

/// The former home of policy overrides, now an input of ``CachePolicyInterceptor``'s plan.
@available(*, deprecated, message: "policy overrides are an input of CachePolicyInterceptor (policyOverrides:)")
public enum PolicyOverrideInterceptor {
    /// The former name of `PolicyOverrideRule.RequestKey`.
    public typealias RuleKey = PolicyOverrideRule.RequestKey
}

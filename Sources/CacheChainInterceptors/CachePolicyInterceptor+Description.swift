extension CachePolicyInterceptor: CustomStringConvertible {
    /// The interceptor and the inputs of its plan that are switched on, as a chain description shows them:
    /// `CachePolicy (coalescing, ranges, 2 policy overrides, 1 body-keyed rule)`, or just `CachePolicy`.
    public var description: String {
        var inputs: [String] = []
        if isRequestCoalescingEnabled { inputs.append("coalescing") }
        if isRangeServingEnabled { inputs.append("ranges") }
        if !policyOverrides.isEmpty { inputs.append("\(policyOverrides.count) policy override\(policyOverrides.count == 1 ? "" : "s")") }
        if !bodyKeyedCaching.isEmpty { inputs.append("\(bodyKeyedCaching.count) body-keyed rule\(bodyKeyedCaching.count == 1 ? "" : "s")") }
        if revalidationQueue == nil { inputs.append("in-line revalidation") }
        return inputs.isEmpty ? "CachePolicy" : "CachePolicy (\(inputs.joined(separator: ", ")))"
    }
}

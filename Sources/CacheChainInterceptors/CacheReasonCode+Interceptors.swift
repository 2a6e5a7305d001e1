public import CacheChainPolicy

extension CacheReason.Code {
    /// The response was shared with an identical request in flight (``RequestCoalescingInterceptor``).
    public static let coalesced = CacheReason.Code(rawValue: "coalesced")
}

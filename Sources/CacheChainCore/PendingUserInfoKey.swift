/// The context key under which outer interceptors leave `userInfo` values for the response about to be stored.
///
/// The storage-decision interceptor merges these values into the proposed ``CachedResponse/userInfo``, so
/// a stamping interceptor placed anywhere outside it gets its values persisted with the entry.
public enum PendingUserInfoKey: ContextValueKey {
    /// The values to persist.
    public typealias Value = CacheUserInfo
}

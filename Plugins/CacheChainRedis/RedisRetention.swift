import CacheChainCore
import CacheChainPolicy
import Foundation
import HTTPTypes

/// How long Redis keeps an entry (`PEXPIRE`): what is left of its freshness lifetime, plus what
/// `stale-while-revalidate` / `stale-if-error` may still use, plus ``RedisStorage/Configuration/staleRetention``
/// for revalidation with a 304 and for `returnCacheDataElseLoad` / `max-stale`. Never below one second.
enum RedisRetention {
    static func milliseconds(for entry: CacheEntry, staleRetention: Duration, now: Date) -> Int {
        let engine = CachePolicyEngine()
        let report = engine.freshness(of: entry.exchange, now: now)
        let seconds = report.remainingFreshness + entry.staleExtension
        let total = min(seconds + staleRetention.housekeepingSeconds, Double(Int32.max))
        return max(1_000, Int(total * 1_000))
    }
}

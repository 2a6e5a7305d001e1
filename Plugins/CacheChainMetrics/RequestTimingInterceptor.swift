public import CacheChainCore
public import CoreMetrics

/// Records how long each request took through the rest of the chain, with a `cache_status` dimension.
///
/// Made by ``CacheMetrics/timing()``. Failed requests are recorded with `cache_status=error`.
public struct RequestTimingInterceptor: HTTPInterceptor {
    private let label: String
    private let dimensions: [(String, String)]
    private let factory: any MetricsFactory

    /// Creates the interceptor.
    /// - Parameters:
    ///   - label: The timer's label.
    ///   - dimensions: Dimensions added to the timer besides `cache_status`.
    ///   - factory: The metrics factory.
    public init(label: String, dimensions: [(String, String)] = [], factory: any MetricsFactory = MetricsSystem.factory) {
        self.label = label
        self.dimensions = dimensions
        self.factory = factory
    }

    /// Times the rest of the chain.
    /// - Parameters:
    ///   - request: The request.
    ///   - context: Its context.
    ///   - next: The rest of the chain.
    /// - Returns: The chain's response.
    /// - Throws: The chain's error, after recording it.
    public func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(since: start, status: response.cacheStatus.rawValue)
            return response
        } catch {
            record(since: start, status: "error")
            throw error
        }
    }

    private func record(since start: ContinuousClock.Instant, status: String) {
        let elapsed = ContinuousClock.now - start
        let (seconds, attoseconds) = elapsed.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        Timer(label: label, dimensions: dimensions + [("cache_status", status)], factory: factory)
            .recordNanoseconds(nanoseconds)
    }
}

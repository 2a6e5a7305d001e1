#if AsyncHTTPClient
import AsyncHTTPClient
import CacheChainCore
import HTTPTypes
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension CacheChainAHCTransport {
    /// Wraps an error once, at the module boundary: AsyncHTTPClient's timeouts become `timed-out`, cancellation
    /// `cancelled`, everything else `transport-failed`; the original error stays as ``CacheChainError/underlying``.
    /// A ``CacheChainError`` (a spool failure, a refused redirect) passes through with the request attached.
    static func wrap(_ error: any Error, url: String, timeout: Duration, request: HTTPRequest, isShutDown: Bool) -> CacheChainError {
        if var error = error as? CacheChainError {
            error.request = error.request ?? request
            return error
        }
        if error is CancellationError {
            return CacheChainError(.cancelled, "the request to \(url) was cancelled", request: request, underlying: error)
        }
        if let channelError = error as? ChannelError, Self.isConnectionLoss(channelError) {
            // A pooled connection the origin closed (or that went away as the request was written to it).
            return CacheChainError(
                .transportFailed,
                "the connection to \(url) closed before the response arrived (\(channelError)); check that the origin is up",
                request: request,
                underlying: error
            )
        }
        guard let clientError = error as? HTTPClientError else {
            return CacheChainError(.transportFailed, "AsyncHTTPClient failed for \(url): \(error)", request: request, underlying: error)
        }
        switch clientError {
        case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
            return CacheChainError(
                .timedOut,
                "\(url) timed out (\(clientError), timeout \(timeout)); raise the timeout or check the origin",
                request: request,
                underlying: error
            )
        case .cancelled:
            return CacheChainError(.cancelled, "the request to \(url) was cancelled", request: request, underlying: error)
        case .alreadyShutdown where isShutDown:
            return CacheChainError(.cancelled, "the request to \(url) was not sent: the transport was shut down", request: request, underlying: error)
        default:
            return CacheChainError(.transportFailed, "AsyncHTTPClient failed for \(url): \(clientError)", request: request, underlying: error)
        }
    }

    /// Whether the error says the origin could not be reached: the connection refused, reset or unroutable, the
    /// name unresolved, or the connection closed by the origin (the caller checks that no response head came).
    static func isUnreachable(_ error: any Error) -> Bool {
        switch error {
        case let error as IOError: [ECONNREFUSED, ECONNRESET, EHOSTUNREACH, ENETUNREACH, ECONNABORTED].contains(error.errnoCode)
        case is NIOConnectionError: true
        case let error as ChannelError: isConnectionLoss(error)
        case let error as HTTPClientError: error == .remoteConnectionClosed
        default: false
        }
    }

    /// Whether NIO's error says the connection was closed under the request.
    private static func isConnectionLoss(_ error: ChannelError) -> Bool {
        switch error {
        case .ioOnClosedChannel, .alreadyClosed, .eof, .outputClosed, .inputClosed: true
        default: false
        }
    }
}
#endif

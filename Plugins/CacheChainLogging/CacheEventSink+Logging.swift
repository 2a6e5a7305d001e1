public import CacheChainCore
public import Logging

extension CacheEventSink {
    /// A sink that logs each event (kind, reason codes, byte count) at `debug`, and storage errors at
    /// `warning`. Keys are logged without their query string.
    /// - Parameter logger: Where lines go.
    /// - Returns: The sink.
    public static func logging(to logger: Logger) -> CacheEventSink {
        CacheEventSink { event in
            var metadata: Logger.Metadata = [
                "event": "\(event.kind)",
                "reasons": "\(event.reasons.joined(separator: ","))",
            ]
            if let key = event.key {
                let url = key.url
                metadata["key"] = "\(key.method) \(url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url)"
            }
            if let bytes = event.bytes { metadata["bytes"] = "\(bytes)" }
            logger.log(level: event.kind == .storageError ? .warning : .debug, "cache event", metadata: metadata)
        }
    }
}

import ArgumentParser
import CacheChain

/// `--policy`: a cache policy by its `URLRequest.CachePolicy` name or its Fetch API cache-mode name.
struct CachePolicyArgument: ExpressibleByArgument {
    let policy: RequestCachePolicy

    /// The Fetch names accepted besides Apple's.
    static let fetchNames: [String: RequestCachePolicy] = [
        "default": .useProtocolCachePolicy,
        "reload": .reloadIgnoringLocalCacheData,
        "no-cache": .reloadRevalidatingCacheData,
        "force-cache": .returnCacheDataElseLoad,
        "only-if-cached": .returnCacheDataDontLoad,
    ]

    init?(argument: String) {
        guard let policy = RequestCachePolicy(rawValue: argument) ?? Self.fetchNames[argument] else { return nil }
        self.policy = policy
    }

    static var allValueStrings: [String] {
        RequestCachePolicy.allCases.map(\.rawValue) + fetchNames.keys.sorted()
    }
}

// A child process for the tests of the shared default client and the ephemeral preset: they run it with
// HOME, XDG_CACHE_HOME and TMPDIR pointing at a fresh directory and look at what it wrote there.
//
// Usage: cachechain-foundation-probe MODE BASE-URL PATH...
//   ephemeral   URLSession(.ephemeral.usingCacheChain(.ephemeral(memoryCapacity: 256 MiB)))
//   shared      URLSession(.default.usingCacheChain(.shared))
//   registered  URLProtocol.registerClass(CacheChainURLProtocol.self), then URLSession.shared
// Each path is fetched twice; one line per fetch: "PATH ATTEMPT STATUS BYTES".
import CacheChain
import CacheChainFoundation
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 4 else {
    FileHandle.standardError.write(Data("usage: cachechain-foundation-probe ephemeral|shared|registered BASE-URL PATH...\n".utf8))
    exit(64)
}
let session: URLSession
switch arguments[1] {
case "ephemeral":
    session = URLSession(configuration: .ephemeral.usingCacheChain(.ephemeral(memoryCapacity: 256 << 20)))
case "shared":
    session = URLSession(configuration: .default.usingCacheChain(.shared))
case "registered":
    _ = URLProtocol.registerClass(CacheChainURLProtocol.self)
    session = URLSession.shared
default:
    FileHandle.standardError.write(Data("unknown mode \(arguments[1])\n".utf8))
    exit(64)
}
do {
    for path in arguments[3...] {
        guard let url = URL(string: arguments[2] + path) else { exit(64) }
        for attempt in 1...2 {
            let (data, response) = try await session.data(from: url)
            print("\(path) \(attempt) \((response as? HTTPURLResponse)?.statusCode ?? -1) \(data.count)")
        }
    }
} catch {
    FileHandle.standardError.write(Data("probe failed: \(error)\n".utf8))
    exit(1)
}

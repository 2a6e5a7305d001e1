import CacheChain
import Foundation
import Testing

/// Issue 47.5: one default chain, one description. Every place the documentation writes the default chain's order
/// (`A → B → C` or a `─` diagram naming `CachePolicy`) must list what `HTTPCacheClient.defaultInterceptors(for:)`
/// returns, in its order: a chain rebuilt from the documentation then loses nothing.
@Suite("The documented default chain is defaultInterceptors(for:)")
struct DefaultChainDescriptionTests {
    /// The repository's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The default chain's built-in interceptors without their `Interceptor` suffix (the configuration's outer
    /// interceptors, empty here, come first).
    static var builtInNames: [String] {
        HTTPCacheClient.defaultInterceptors(for: .init()).map { interceptor in
            let name = String(describing: type(of: interceptor))
            return name.hasSuffix("Interceptor") ? String(name.dropLast("Interceptor".count)) : name
        }
    }

    /// Words that end a written chain: its transport.
    static let transports: Set<String> = ["transport", "libcurl", "CurlTransport", "CacheChainAHCTransport", "origin"]

    /// Interceptors that were once positions of the default chain and are now steps of the cache policy's plan.
    static let formerPositions = ["RequestCoalescing", "RangeRequest", "PolicyOverride", "BodyKeyedCaching"]

    /// The documents that describe the chain: Markdown outside CHANGELOG.md (which records history) and the
    /// `///` comments of the sources.
    static func documents() throws -> [URL] {
        var found: [URL] = []
        let files = FileManager.default
        for folder in ["", "Docs", "Sources", "Plugins", "Examples"] {
            let base = folder.isEmpty ? root : root.appendingPathComponent(folder)
            let paths = folder.isEmpty
                ? try files.contentsOfDirectory(atPath: base.path).filter { $0.hasSuffix(".md") && $0 != "CHANGELOG.md" }
                : (files.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? [])
            for path in paths where path.hasSuffix(".md") || path.hasSuffix(".swift") {
                found.append(base.appendingPathComponent(path))
            }
        }
        return found
    }

    /// The interceptor names of a line that writes a chain (`→` or `─` between names, one of them `CachePolicy`),
    /// without `Interceptor` suffixes, backticks, parenthesised notes or a trailing `?`; nil for other lines.
    static func chain(in line: String) -> [String]? {
        let separators: Set<Character> = ["→", "─"]
        guard line.contains(where: separators.contains) else { return nil }
        // Parenthesised notes without an arrow go (`CachePolicy (coalescing, ranges)`); a chain in parentheses stays.
        let text = line.replacingOccurrences(of: "`", with: "").replacing(/\([^()→─]*\)/, with: "")
        let names = text.split(whereSeparator: separators.contains).map { part -> String in
            var word = part.trimmingCharacters(in: .whitespaces.union(.init(charactersIn: "▶◀│")))
            if !["[", "outer", "configuration"].contains(where: word.hasPrefix) { word = String(word.prefix { !$0.isWhitespace }) }
            var name = word.trimmingCharacters(in: .whitespaces.union(.punctuationCharacters))
            if name.hasSuffix("Interceptor") { name = String(name.dropLast("Interceptor".count)) }
            return name
        }.filter { !$0.isEmpty }
        return names.contains("CachePolicy") ? names : nil
    }

    @Test("every written chain lists the built-ins of defaultInterceptors(for:) in its order, and no former position")
    func everyDescriptionMatches() throws {
        let builtIns = Self.builtInNames
        #expect(builtIns == ["Redirect", "CachePolicy", "Revalidation", "StorageDecision"], "the built-in chain changed: update the documents")
        // From the cache policy on; `Redirect` (first unless switched off) comes before the outer interceptors.
        let expected = Array(builtIns.drop { $0 != "CachePolicy" })
        var checked = 0
        for document in try Self.documents() {
            let text = try String(contentsOf: document, encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for (offset, line) in lines.enumerated() {
                // A chain that goes on in the next line (`A → B →` / `/// C → D`) is read as one line.
                var written = line
                if line.trimmingCharacters(in: .whitespaces).hasSuffix("→"), offset + 1 < lines.count {
                    written += " " + lines[offset + 1].trimmingCharacters(in: .whitespaces).drop { $0 == "/" }
                }
                guard let names = Self.chain(in: written), let start = names.firstIndex(of: "CachePolicy") else { continue }
                checked += 1
                let place = "\(document.path.dropFirst(Self.root.path.count + 1)):\(offset + 1)"
                // What follows CachePolicy, up to the transport: the built-ins in order, all of them when the transport
                // ends the line (a diagram that goes on in another line may stop earlier).
                let rest = names[start...]
                let end = rest.firstIndex { Self.transports.contains($0) }
                // The configuration's network interceptors (none by default) sit between StorageDecision and the transport.
                let listed = rest[..<(end ?? rest.endIndex)].filter { !$0.hasPrefix("configuration") && !$0.lowercased().hasPrefix("network") }
                let complete = end == nil ? expected.starts(with: listed) : listed == expected
                #expect(complete, "\(place) writes the chain as \(names.joined(separator: " → ")); defaultInterceptors(for:) is \(expected.joined(separator: " → "))")
                let former = names.filter { name in Self.formerPositions.contains { name.hasPrefix($0) } }
                #expect(former.isEmpty, "\(place) names \(former) as a position of the chain; it is a step of CachePolicy's plan")
            }
        }
        #expect(checked >= 4, "found only \(checked) written chains: the scan is broken")
    }
}

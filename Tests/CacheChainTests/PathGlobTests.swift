import CacheChain
import Testing

/// Linear-time path globs (issue 46.5): steps are counted, not timed.
@Suite("Path globs match in time linear in the path")
struct PathGlobTests {
    @Test("globs mean what PolicyOverrideRule documents", arguments: [
        ("/img/*.png", "/img/a.png", true),
        ("/img/*.png", "/img/sub/a.png", false),
        ("/img/**.png", "/img/sub/a.png", true),
        ("/img/**/*.png", "/img/a/b/c.png", true),
        ("/img/**/*.png", "/img/c.png", false),
        ("/img/?.png", "/img/a.png", true),
        ("/img/?.png", "/img/ab.png", false),
        ("/img/?.png", "/img//.png", false),
        ("/*", "/", true),
        ("/*", "/a/", false),
        ("/**", "/a/b/", true),
        ("/a/***", "/a/b/c", true),
        ("", "", true),
        ("", "/", false),
        ("/a", "/a/", false),
    ])
    func meaning(pattern: String, path: String, expected: Bool) {
        #expect(PathGlob(pattern.utf8).matches(path.utf8) == expected)
    }

    @Test("a 64 KB path against a pattern with eight ** takes steps linear in the path, matching or not")
    func linearSteps() {
        let pattern = "/**/a/**/b/**/c/**/d/**/e/**/f/**/g/**/*.png"
        #expect(pattern.utf8.count - pattern.replacing("**", with: "").utf8.count == 16, "eight **")
        let glob = PathGlob(pattern.utf8)
        // Every segment a candidate for every `**`, and the end never matching: the worst case of backtracking.
        let segments = String(repeating: "/a/b/c/d/e/f/g", count: (64 * 1024) / 14)
        for (path, expected) in [(segments + "/x.jpg", false), (segments + "/x.png", true)] {
            let (matches, steps) = glob.match(path.utf8)
            #expect(matches == expected)
            let bound = 3 * (path.utf8.count + 1) * (pattern.utf8.count + 1)
            #expect(path.utf8.count >= 64 * 1024 - 14)
            #expect(steps <= bound, "\(steps) steps for \(path.utf8.count) bytes and \(pattern.utf8.count) pattern bytes")
        }
    }
}

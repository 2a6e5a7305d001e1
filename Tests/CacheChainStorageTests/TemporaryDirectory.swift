import Foundation

/// A fresh directory per test (tests run in parallel), removed when the value is released.
final class TemporaryDirectory: Sendable {
    let path: String

    init(_ label: String = "disk") {
        path = NSTemporaryDirectory() + "cachechain-\(label)-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

import CacheChainCurl
import Foundation

/// `cachechain get`'s progress display: one stderr line rewritten in place (`\r`) as the body arrives.
enum DownloadProgressLine {
    /// Prints a progress report; the last one ends the line. Called on the transport's thread, so it only
    /// formats and writes.
    @Sendable static func report(_ progress: TransferProgress) {
        let received = mebibytes(progress.receivedBytes)
        var text = "\r  received \(received) MiB"
        if let expected = progress.expectedBytes, expected > 0 {
            text += " of \(mebibytes(expected)) MiB (\(progress.receivedBytes * 100 / expected)%)"
        }
        if progress.isComplete { text += "\n" }
        FileHandle.standardError.write(Data(text.utf8))
    }

    private static func mebibytes(_ bytes: Int) -> String {
        String(format: "%.1f", Double(bytes) / 1_048_576)
    }
}

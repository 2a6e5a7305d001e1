import CacheChainBatch
import CacheChainCore
import CacheChainCurl
import CacheChainEncryption
import CacheChainPolicy
import CacheChainDiskStorage
import CacheChainStorage
import Foundation
import HTTPTypes

/// One parser under fuzzing: what it is fed and what must hold for every input.
///
/// Every target feeds the bytes to the code that reads them in production and checks that it returns a
/// value or a typed error (never a crash, never a trap on arithmetic or an index); some also check a
/// property (a date that parses formats and parses back to itself).
enum FuzzTarget: String, CaseIterable, Sendable {
    /// `Cache-Control` field lines (RFC 9111 §5.2).
    case cacheControl = "cache-control"
    /// HTTP-date in its three forms (RFC 9110 §5.6.7).
    case httpDate = "http-date"
    /// A response head as libcurl reports it (status line, header lines, folding), then everything the
    /// policy reads from it: `Age`, `Date`, `Vary`, `Content-Length` (``MessageFraming``), `Cache-Control`, validators.
    case responseHead = "response-head"
    /// `cachechain batch` input lines, through the session's state machine.
    case batchLine = "batch-line"
    /// A disk entry file: header, metadata, body.
    case diskEntry = "disk-entry"
    /// An index row with an inline body: metadata, body, recorded length and checksum.
    case indexRow = "index-row"
    /// An encrypted envelope, and the plaintext stream an opened envelope yields.
    case envelope = "envelope"

    /// Runs one input.
    /// - Returns: Whether the parser accepted it (a value rather than a typed error or a miss), so that a
    ///   replay can tell that the seeds reach past the first check.
    @discardableResult
    func run(_ bytes: [UInt8], context: FuzzContext) -> Bool {
        switch self {
        case .cacheControl: PolicyFuzzing.cacheControl(bytes)
        case .httpDate: PolicyFuzzing.httpDate(bytes)
        case .responseHead: PolicyFuzzing.responseHead(bytes)
        case .batchLine: BatchFuzzing.lines(bytes)
        case .diskEntry: DiskFuzzing.readEntryFile(bytes, scratchPath: context.scratchFile) != nil
        case .indexRow: StorageFuzzing.indexRow(bytes)
        case .envelope: context.envelope.map { EncryptionFuzzing.envelope(bytes, fuzzer: $0) } ?? false
        }
    }

    /// Valid inputs to start from (the seed corpus).
    func seeds(context: FuzzContext) -> [[UInt8]] {
        switch self {
        case .cacheControl: Seeds.cacheControl
        case .httpDate: Seeds.httpDates
        case .responseHead: Seeds.responseHeads
        case .batchLine: Seeds.batchLines
        case .diskEntry: [DiskFuzzing.seedEntryFile(Seeds.entry)]
        case .indexRow: [StorageFuzzing.seed(EntryCodec.encodeMetadata(Seeds.entry), body: Seeds.body)]
        case .envelope: context.envelope.map { EncryptionFuzzing.seeds($0) } ?? []
        }
    }
}

import CCurl
import CacheChainCore
import CacheChainPolicy
import HTTPTypes
import Synchronization

// What arrives on the loop thread: body chunks (in memory, then spooled), header lines, and the C callbacks
// libcurl calls them through.
extension CurlTransfer {
    func appendBody(_ pointer: UnsafeRawBufferPointer) -> Bool {
        if bodyCount + pointer.count > maximumBodySize {
            exceededMaximum = true
            return false
        }
        bodyCount += pointer.count
        do throws(CacheChainError) {
            if let spool {
                try spool.append(pointer)
            } else if bodyCount > inMemoryBodyLimit {
                // Spool from here on: memory stays bounded by the limit whatever the body's size.
                let writer = try BodyFileWriter(directory: spoolDirectory)
                spool = writer
                try writer.append(body)
                body = []
                try writer.append(pointer)
            } else {
                body.append(contentsOf: pointer)
            }
            if let progress, bodyCount >= nextProgressReport {
                let interval = TransferProgressKey.reportingInterval
                nextProgressReport = (bodyCount / interval + 1) * interval   // the next whole MiB: no drift
                progress(TransferProgress(receivedBytes: bodyCount, expectedBytes: expectedBodyCount, isComplete: false))
            }
            return true
        } catch {
            spoolFailure = error
            return false
        }
    }

    /// The announced body size: `Content-Length`, unless the body is content-encoded (libcurl decodes it,
    /// so the received count differs from the header).
    var expectedBodyCount: Int? {
        var length: Int?
        var isEncoded = false
        for field in head.fields {
            switch field.name.lowercased() {
            case "content-length": length = Int(String(decoding: field.value, as: UTF8.self))
            case "content-encoding": isEncoded = String(decoding: field.value, as: UTF8.self).lowercased() != "identity"
            default: break
            }
        }
        return isEncoded ? nil : length
    }

    /// The received body: in memory, or the spool file.
    func takeBody() throws(CacheChainError) -> PipelineBody {
        guard let spool else { return PipelineBody(body) }
        self.spool = nil
        return try spool.finish()
    }

    func appendHeaderLine(_ pointer: UnsafeRawBufferPointer) {
        head.consume(line: pointer)
        if let interimHandler, head.interimResponses.count > reportedInterimCount {
            reportedInterimCount = head.interimResponses.count
            head.interimResponses.last.map(interimHandler)  // as it arrives, before the final response
        }
        // A coding libcurl cannot decode would fail the transfer when the body arrives: take the body as it
        // is instead (libcurl reads this option per body chunk, so setting it before the body takes effect).
        if decodesContent, let coding = head.lastField(named: "content-encoding"), !CurlContentCodings.canDecode(coding) {
            decodesContent = false
            _ = cachechain_easy_setopt_long(easy, CURLOPT_HTTP_CONTENT_DECODING, 0)
        }
        // A transfer coding libcurl does not know (`Transfer-Encoding: foo`, `gzip, foo`, `foo, chunked`) would
        // fail the transfer too (error 61): libcurl keeps transfer codings other than `chunked` on the same
        // decoding stack as content codings, which this option bypasses. libcurl still undoes a final `chunked`;
        // without one it reads the body until the connection closes (RFC 9112 §6.3). The body is passed on as
        // received, content codings included, its head describing it (no Transfer-Encoding, see `complete`).
        if let codings = head.lastField(named: "transfer-encoding"), !CurlContentCodings.canDecode(transferCodings: codings) {
            decodesContent = false
            _ = cachechain_easy_setopt_long(easy, CURLOPT_HTTP_CONTENT_DECODING, 0)
        }
    }
}

// MARK: - C callbacks (no captures: the transfer comes back through the userdata pointer)

let curlWriteCallback: cachechain_curl_data_callback = { data, size, count, userdata in
    guard let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    let length = size * count
    guard let data else { return length }
    if let verdict = transfer.streamingVerdict(for: UnsafeRawBufferPointer(start: data, count: length)) { return verdict }
    return transfer.appendBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

let curlHeaderCallback: cachechain_curl_data_callback = { data, size, count, userdata in
    guard let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    let length = size * count
    if let data { transfer.appendHeaderLine(UnsafeRawBufferPointer(start: data, count: length)) }
    return length
}

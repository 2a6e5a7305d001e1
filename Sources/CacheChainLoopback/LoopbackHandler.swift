#if Loopback
import CacheChainPolicy
import Foundation
import NIOCore
import NIOHTTP1

/// The per-connection NIO handler: collects a request, asks the router for its route, writes the answer.
///
/// Runs only on its channel's event loop. Over HTTP/1.1 it serves one connection, whose requests are
/// answered in order (`configureHTTPServerPipeline` holds back pipelined requests until the previous answer
/// ended). Over HTTP/2 it serves one stream, behind `HTTP2FramePayloadToHTTP1ServerCodec`, which turns the
/// stream's frames into the same request parts (version `2.0`) and the answer's parts back into frames, so
/// routes, 304s, delays, gates and counters behave identically on both protocols.
final class LoopbackHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// The size of one written chunk of a generated body.
    static let chunkSize = 64 * 1024

    private let router: LoopbackRouter
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var pendingDelay: Scheduled<Void>?
    private var isActive = true

    init(router: LoopbackRouter) {
        self.router = router
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.removeAll(keepingCapacity: true)
        case .body(let buffer):
            body.append(contentsOf: buffer.readableBytesView)
        case .end:
            guard let head else { return }
            self.head = nil
            let request = LoopbackRequest(
                method: head.method.rawValue,
                path: head.uri,
                headers: head.headers.map { LoopbackHeader($0.name, $0.value) },
                body: body,
                version: LoopbackHTTPVersion(major: head.version.major, minor: head.version.minor)
            )
            body = []
            let route = router.answer(for: request)
            // An HTTP/2 stream ends with its answer; the connection itself always stays open.
            let keepAlive = head.version.major >= 2 || head.isKeepAlive
            let version = head.version
            guard let gate = route.gate, !gate.isOpen else {
                answer(route, to: request, version: version, keepAlive: keepAlive, context: context)
                return
            }
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            gate.whenOpen {
                eventLoop.execute {
                    let (handler, context) = loopBound.value
                    guard handler.isActive else { return }
                    handler.answer(route, to: request, version: version, keepAlive: keepAlive, context: context)
                }
            }
        }
    }

    /// Answers now, or after the route's delay.
    private func answer(
        _ route: LoopbackRoute,
        to request: LoopbackRequest,
        version: HTTPVersion,
        keepAlive: Bool,
        context: ChannelHandlerContext
    ) {
        guard let delay = route.delay, delay > .zero else {
            respond(route, to: request, version: version, keepAlive: keepAlive, context: context)
            return
        }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        pendingDelay = context.eventLoop.scheduleTask(in: TimeAmount(delay)) {
            let (handler, context) = loopBound.value
            handler.pendingDelay = nil
            guard handler.isActive else { return }
            handler.respond(route, to: request, version: version, keepAlive: keepAlive, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        isActive = false
        pendingDelay?.cancel()
        pendingDelay = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A client that vanishes mid-answer or fails the TLS handshake: nothing to answer, just close.
        context.close(promise: nil)
    }

    private func respond(
        _ route: LoopbackRoute,
        to request: LoopbackRequest,
        version: HTTPVersion,
        keepAlive: Bool,
        context: ChannelHandlerContext
    ) {
        if let raw = route.rawResponse {
            writeRaw(raw, version: version, context: context)
            return
        }
        var headers = HTTPHeaders()
        for header in route.headers { headers.add(name: header.name, value: header.value) }
        if !headers.contains(name: "Date") { headers.add(name: "Date", value: HTTPDate.format(Date())) }
        if let etag = route.etag, !headers.contains(name: "ETag") { headers.add(name: "ETag", value: etag) }
        if let lastModified = route.lastModified, !headers.contains(name: "Last-Modified") {
            headers.add(name: "Last-Modified", value: lastModified)
        }
        let isSafe = request.method == "GET" || request.method == "HEAD"
        var status = route.status
        var body = route.body
        if isSafe, (200..<300).contains(status), Self.validatorsMatch(route, request) {
            // 304 (RFC 9110 §15.4.5): no content; the representation's metadata headers stay (ETag,
            // Cache-Control, Expires, Date, Vary, Last-Modified and the route's other fields), the
            // content-describing ones go.
            status = 304
            body = .bytes([])
            for name in ["Content-Type", "Content-Encoding", "Content-Language", "Content-Range"] {
                headers.remove(name: name)
            }
        }
        headers.remove(name: "Content-Length")
        headers.remove(name: "Transfer-Encoding")
        // Every answer carries Content-Length except 1xx, 204 and 304, which must not (RFC 9110 §8.6).
        let mayHaveLength = status >= 200 && status != 204 && status != 304
        if mayHaveLength { headers.add(name: "Content-Length", value: String(body.count)) }
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        let responseHead = HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: status), headers: headers)
        writeInterim(route.interimResponses, version: version, context: context)
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
        let sendsBody = request.method != "HEAD" && mayHaveLength
        switch body {
        case .bytes(let bytes) where sendsBody && !bytes.isEmpty:
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: bytes)))), promise: nil)
            finish(keepAlive: keepAlive, context: context)
        case .generated(let count) where sendsBody && count > 0:
            let pause = route.bodyPauseGate.map { (offset: route.bodyPauseOffset, gate: $0) }
            writeGenerated(from: 0, count: count, keepAlive: keepAlive, pause: pause, context: context)
        case .stalled(_, let sentBeforeStall) where sendsBody:
            var buffer = context.channel.allocator.buffer(capacity: sentBeforeStall)
            LoopbackRoute.Body.writePattern(from: 0, count: sentBeforeStall, into: &buffer)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        default:
            finish(keepAlive: keepAlive, context: context)
        }
    }

    /// Writes a route's interim (1xx) responses below the HTTP/1.1 encoder, ahead of the answer's head (the
    /// encoder then writes the head after them, in order); nothing over HTTP/2.
    private func writeInterim(_ interim: [(status: Int, headers: [(String, String)])], version: HTTPVersion, context: ChannelHandlerContext) {
        guard !interim.isEmpty, version.major == 1,
            let encoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
        else { return }
        var text = ""
        for (status, headers) in interim {
            let phrase = HTTPResponseStatus(statusCode: status).reasonPhrase
            text += "HTTP/1.1 \(status) \(phrase)\r\n" + headers.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n"
        }
        encoder.write(NIOAny(context.channel.allocator.buffer(string: text)), promise: nil)
    }

    /// Writes a route's raw answer below the HTTP/1.1 encoder (so it reaches the socket, or TLS, exactly as
    /// given) and closes the connection; over HTTP/2, where there is no such byte stream, answers 500.
    private func writeRaw(_ raw: [UInt8], version: HTTPVersion, context: ChannelHandlerContext) {
        guard version.major == 1, let encoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
        else {
            let head = HTTPResponseHead(version: version, status: .internalServerError, headers: ["Content-Length": "0"])
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            finish(keepAlive: true, context: context)
            return
        }
        let channel = context.channel
        encoder.writeAndFlush(NIOAny(channel.allocator.buffer(bytes: raw))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    /// Writes a generated body one 64 KiB chunk at a time; the next chunk is written only once the
    /// previous one reached the socket, so memory stays bounded whatever the body's size. With a `pause`, the
    /// chunk after `offset` bytes waits until its gate opens.
    private func writeGenerated(
        from offset: Int,
        count: Int,
        keepAlive: Bool,
        pause: (offset: Int, gate: LoopbackGate)?,
        context: ChannelHandlerContext
    ) {
        guard isActive else { return }
        let chunkSize = min(Self.chunkSize, count - offset)
        var buffer = context.channel.allocator.buffer(capacity: chunkSize)
        LoopbackRoute.Body.writePattern(from: offset, count: chunkSize, into: &buffer)
        let next = offset + chunkSize
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer)))).whenComplete { result in
            guard case .success = result else { return }
            // Hop through the event loop so writes that complete synchronously do not nest the stack.
            let proceed: @Sendable () -> Void = {
                eventLoop.execute {
                    let (handler, context) = loopBound.value
                    if next < count {
                        let later = pause.flatMap { next >= $0.offset ? nil : $0 }
                        handler.writeGenerated(from: next, count: count, keepAlive: keepAlive, pause: later, context: context)
                    } else {
                        handler.finish(keepAlive: keepAlive, context: context)
                    }
                }
            }
            if let pause, next >= pause.offset { pause.gate.whenOpen(proceed) } else { proceed() }
        }
    }

    private func finish(keepAlive: Bool, context: ChannelHandlerContext) {
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
    }

    /// Whether the request's validators select the route's representation (RFC 9110 §13.2.2):
    /// `If-None-Match` (weak comparison, or `*`) when present, else `If-Modified-Since` (equal text, or
    /// a parsed date no earlier than `Last-Modified`).
    static func validatorsMatch(_ route: LoopbackRoute, _ request: LoopbackRequest) -> Bool {
        let noneMatch = request.headerValues("If-None-Match")
        if !noneMatch.isEmpty {
            guard let etag = route.etag else { return false }
            let members = noneMatch.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
            if members.contains("*") || members.contains(etag) { return true }
            guard let tag = EntityTag(parsing: etag) else { return false }
            return noneMatch.flatMap { EntityTag.parseList($0) }.contains { $0.weakMatches(tag) }
        }
        guard let since = request.header("If-Modified-Since"), let lastModified = route.lastModified else { return false }
        if since.trimmingCharacters(in: .whitespaces) == lastModified.trimmingCharacters(in: .whitespaces) { return true }
        guard let sinceDate = HTTPDate.parse(since), let modifiedDate = HTTPDate.parse(lastModified) else { return false }
        return modifiedDate <= sinceDate
    }
}
#endif

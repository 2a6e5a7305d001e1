import CacheChainPolicy
import Foundation
import NIOCore
import NIOHTTP1

/// The per-connection NIO handler: collects a request, asks the origin for its route, writes the answer.
final class LoopbackHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let origin: LoopbackOrigin
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(origin: LoopbackOrigin) {
        self.origin = origin
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.removeAll(keepingCapacity: true)
        case .body(var buffer):
            body.append(contentsOf: buffer.readBytes(length: buffer.readableBytes) ?? [])
        case .end:
            guard let head else { return }
            self.head = nil
            let request = LoopbackRequest(
                method: head.method.rawValue,
                path: head.uri,
                headers: head.headers.map { LoopbackHeader($0.name, $0.value) },
                body: body
            )
            let route = origin.answer(for: request)
            let keepAlive = head.isKeepAlive
            let version = head.version
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            if let delay = route.delay {
                let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
                context.eventLoop.scheduleTask(in: .nanoseconds(nanoseconds)) {
                    let (handler, context) = loopBound.value
                    handler.respond(route, to: request, version: version, keepAlive: keepAlive, context: context)
                }
            } else {
                respond(route, to: request, version: version, keepAlive: keepAlive, context: context)
            }
        }
    }

    private func respond(
        _ route: LoopbackRoute,
        to request: LoopbackRequest,
        version: HTTPVersion,
        keepAlive: Bool,
        context: ChannelHandlerContext
    ) {
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
            status = 304
            body = .bytes([])
            for name in ["Content-Type", "Content-Encoding", "Content-Language"] { headers.remove(name: name) }
        }
        headers.remove(name: "Content-Length")
        if status != 304 && status != 204 { headers.add(name: "Content-Length", value: String(body.count)) }
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        let responseHead = HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: status), headers: headers)
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
        let sendsBody = request.method != "HEAD" && status != 304 && status != 204
        switch body {
        case .bytes(let bytes) where sendsBody && !bytes.isEmpty:
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: bytes)))), promise: nil)
            finish(keepAlive: keepAlive, context: context)
        case .generated(let count) where sendsBody && count > 0:
            writeGenerated(from: 0, count: count, keepAlive: keepAlive, context: context)
        default:
            finish(keepAlive: keepAlive, context: context)
        }
    }

    /// Writes a generated body one 64 KiB chunk at a time, each after the previous one was flushed.
    private func writeGenerated(from offset: Int, count: Int, keepAlive: Bool, context: ChannelHandlerContext) {
        let chunkSize = min(64 * 1024, count - offset)
        var buffer = context.channel.allocator.buffer(capacity: chunkSize)
        for index in offset..<(offset + chunkSize) { buffer.writeInteger(LoopbackRoute.Body.generatedByte(at: index)) }
        let next = offset + chunkSize
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer)))).whenComplete { result in
            let (handler, context) = loopBound.value
            guard case .success = result else { return }
            if next < count {
                handler.writeGenerated(from: next, count: count, keepAlive: keepAlive, context: context)
            } else {
                handler.finish(keepAlive: keepAlive, context: context)
            }
        }
    }

    private func finish(keepAlive: Bool, context: ChannelHandlerContext) {
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
    }

    private static func validatorsMatch(_ route: LoopbackRoute, _ request: LoopbackRequest) -> Bool {
        let noneMatch = request.headerValues("If-None-Match")
        if !noneMatch.isEmpty {
            guard let etag = route.etag.flatMap({ EntityTag(parsing: $0) }) else { return false }
            if noneMatch.contains(where: { $0.trimmingCharacters(in: .whitespaces) == "*" }) { return true }
            return noneMatch.flatMap { EntityTag.parseList($0) }.contains { $0.weakMatches(etag) }
        }
        guard let since = request.header("If-Modified-Since").flatMap(HTTPDate.parse),
            let modified = route.lastModified.flatMap(HTTPDate.parse)
        else { return false }
        return modified <= since
    }
}

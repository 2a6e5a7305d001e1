import Synchronization
import Tracing

/// A tracer that records every finished span in memory and injects a W3C `traceparent` (the test double of a
/// tracing backend). `InstrumentationSystem.bootstrap(_:)` can be called once per process and would trace every
/// other test's requests too, so each test binds its own with `withTracer(_:_:)`, which `InstrumentationSystem`
/// answers with inside that scope as it answers with a bootstrapped one.
final class RecordingTracer: Tracer {
    /// A finished span.
    struct Finished: Sendable {
        let name: String
        let kind: SpanKind
        let ids: IDs
        let attributes: SpanAttributes
        let events: [String]
        let status: SpanStatus?

        /// A string or integer attribute as text; `nil` when absent.
        func text(_ key: String) -> String? {
            switch attributes[key]?.toSpanAttribute() {
            case .string(let value): value
            case .int64(let value): String(value)
            case .int32(let value): String(value)
            case .bool(let value): String(value)
            default: nil
            }
        }
    }

    /// A span's identity: W3C trace and span ids, and its parent's span id.
    struct IDs: Sendable, Hashable {
        let traceID: String
        let spanID: String
        let parentSpanID: String?
    }

    private enum IDsKey: ServiceContextKey { typealias Value = IDs }

    private let finished = Mutex<[Finished]>([])

    /// The finished spans whose `url.full` starts with `prefix`.
    func spans(urlPrefix prefix: String) -> [Finished] {
        finished.withLock { $0.filter { $0.text("url.full")?.hasPrefix(prefix) == true } }
    }

    /// Every finished span.
    var allSpans: [Finished] { finished.withLock { $0 } }

    fileprivate func record(_ span: Finished) { finished.withLock { $0.append(span) } }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String,
        context: @autoclosure () -> ServiceContext,
        ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant,
        function: String,
        file fileID: String,
        line: UInt
    ) -> RecordingSpan {
        var context = context()
        let parent = context[IDsKey.self]
        let ids = IDs(traceID: parent?.traceID ?? Self.hex(bytes: 16), spanID: Self.hex(bytes: 8), parentSpanID: parent?.spanID)
        context[IDsKey.self] = ids
        return RecordingSpan(name: operationName, kind: kind, context: context, ids: ids, tracer: self)
    }

    func forceFlush() {}

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {}

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        guard let ids = context[IDsKey.self] else { return }
        injector.inject("00-\(ids.traceID)-\(ids.spanID)-01", forKey: "traceparent", into: &carrier)
    }

    private static func hex(bytes: Int) -> String {
        (0..<bytes).map { _ in String(UInt8.random(in: 0...255), radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
    }
}

/// A span of ``RecordingTracer``: it records itself when it ends.
final class RecordingSpan: Span {
    private struct State {
        var name: String
        var attributes: SpanAttributes = [:]
        var events: [String] = []
        var status: SpanStatus?
        var ended = false
    }

    let context: ServiceContext
    private let kind: SpanKind
    private let ids: RecordingTracer.IDs
    private let tracer: RecordingTracer
    private let state: Mutex<State>

    init(name: String, kind: SpanKind, context: ServiceContext, ids: RecordingTracer.IDs, tracer: RecordingTracer) {
        self.context = context
        self.kind = kind
        self.ids = ids
        self.tracer = tracer
        state = Mutex(State(name: name))
    }

    var operationName: String {
        get { state.withLock { $0.name } }
        set { state.withLock { $0.name = newValue } }
    }

    var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set { state.withLock { $0.attributes = newValue } }
    }

    var isRecording: Bool { state.withLock { !$0.ended } }

    func setStatus(_ status: SpanStatus) { state.withLock { $0.status = status } }

    func addEvent(_ event: SpanEvent) { state.withLock { $0.events.append(event.name) } }

    func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {
        state.withLock { $0.events.append("exception") }
    }

    func addLink(_ link: SpanLink) {}

    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let finished: RecordingTracer.Finished? = state.withLock { state in
            guard !state.ended else { return nil }
            state.ended = true
            return .init(name: state.name, kind: kind, ids: ids, attributes: state.attributes, events: state.events, status: state.status)
        }
        if let finished { tracer.record(finished) }
    }
}
